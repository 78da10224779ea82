#!/usr/bin/env python3
"""Build tests/kernels/: the code of every kernel of a folder of cubins.

Usage: scripts/build-test-kernels.py [CUBINS] [OUT]

CUBINS holds `sm_NN/NAME.cubin` files, one folder per SM, as ptxas wrote
them (default: ../shared/kernels beside the checkout, ptxas -O3 output of
the public PTX generators in ../shared/corpus/ptx; its README says which
ptxas). OUT (default tests/kernels) gets one `sm_NN.tsv.gz` per SM with a
line `CUBIN<TAB>FUNCTION<TAB>HEX` per kernel: the bytes of the function's
`.text.FUNCTION` section, a raw stream starting at address 0 with the
control bits exactly as ptxas set them (Maxwell's scheduling words
included). The hazard checker's tests read these files, so the suite needs
no ../shared.

Only the ELF section table is read (the ELF64 little-endian header,
section headers and section names), which is all a cubin's code needs.
"""

import gzip
import os
import struct
import sys


def text_sections(data):
    """(function name, bytes) of each non-empty `.text.NAME` section."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a little-endian ELF64 file")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [
        struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
        for i in range(shnum)
    ]
    names_at = headers[shstrndx][4]

    def name(off):
        end = data.index(b"\0", names_at + off)
        return data[names_at + off : end].decode()

    for h in headers:
        n, offset, size = name(h[0]), h[4], h[5]
        if n.startswith(".text.") and size > 0:
            if offset + size > len(data):
                raise ValueError(f"section {n} runs past the end of the file")
            yield n[len(".text.") :], data[offset : offset + size]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "../../shared/kernels")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "../tests/kernels")
    os.makedirs(out, exist_ok=True)
    for sm_dir in sorted(os.listdir(src)):
        if not sm_dir.startswith("sm_"):
            continue
        lines = []
        for f in sorted(os.listdir(os.path.join(src, sm_dir))):
            if not f.endswith(".cubin"):
                continue
            with open(os.path.join(src, sm_dir, f), "rb") as fh:
                data = fh.read()
            for func, code in text_sections(data):
                lines.append(f"{f[: -len('.cubin')]}\t{func}\t{code.hex()}\n")
        path = os.path.join(out, f"{sm_dir}.tsv.gz")
        # mtime 0: the same cubins give the same bytes.
        with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
            gz.write("".join(lines).encode())
        print(f"{path}: {len(lines)} kernels")


if __name__ == "__main__":
    main()
