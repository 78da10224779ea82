#!/usr/bin/env python3
"""Generate nak/tests/data/float_vectors.txt: how nvdisasm prints float immediates.

Usage:
    source /tmp/oracle-tools/env.sh          # sets $NVDISASM_13
    python3 scripts/gen_float_vectors.py [OUT] [--check N]

OUT defaults to nak/tests/data/float_vectors.txt (relative to the repo root).

How it works: it takes two SM75 instruction words whose 32-bit immediate sits
in bits 32..63 (bytes 4..8 of the little-endian 16-byte word):

* `FFMA R10, R9, R11, <f32>`  (`23740a090000803f0b00000000c81f00`, from
  corpus/sm_75.txt) for f32 immediates;
* `DADD R14, R6, <f64>` (`29740e060000f83f0000000000c00f00`) for f64
  immediates, where the 32-bit field is the HIGH word of the double (the low
  word is zero).

It writes thousands of copies with different immediates into one raw file,
runs `$NVDISASM_13 -b SM75 FILE` once per batch and cuts the immediate's text
out of each line.  nvdisasm prints `FFMA R10, R9, R11, 1 ;` and
`DADD R14, R6, 1;`, and the specials with a trailing blank of their own
(`+INF  ;`, `+INF ;`), so the raw immediate text is what lies between the
last operand separator and `" ;"` (FFMA) or `";"` (DADD).  That text is stored
verbatim, trailing blank included.

The vectors cover: specials (signed zeros, infinities, quiet and signalling
NaNs with various payloads), denormals, every power of two of f32 and a
spread of those of f64, integers and powers of ten, the 1e9 switch between
%.20g and %.20e, values whose 20/21-digit rounding is an exact tie, and
random bit patterns (seeded, so the file is reproducible).

Output format, one vector per line (lines starting with '#' are comments):

    f32<TAB>8 hex digits<TAB>text
    f64<TAB>16 hex digits<TAB>text

`--check N` additionally compares N random f32 and N random f64 high words
against the model below (printf "%.20g" / "%.20e", see nak/src/runtime/fmt_float.rs)
without storing them; it exits non-zero on a mismatch.

Python 3 standard library only.
"""

import math
import os
import random
import struct
import subprocess
import sys
import tempfile

FFMA = bytes.fromhex("23740a090000803f0b00000000c81f00")
DADD = bytes.fromhex("29740e060000f83f0000000000c00f00")
BATCH = 50000


def nvdisasm():
    path = os.environ.get("NVDISASM_13")
    if not path:
        sys.exit("set $NVDISASM_13 (source /tmp/oracle-tools/env.sh)")
    return path


def disasm(template, imms):
    """Raw immediate texts nvdisasm prints for the 32-bit fields `imms`."""
    out = []
    for start in range(0, len(imms), BATCH):
        chunk = imms[start:start + BATCH]
        data = b"".join(template[:4] + struct.pack("<I", v) + template[8:]
                        for v in chunk)
        with tempfile.NamedTemporaryFile(suffix=".bin") as f:
            f.write(data)
            f.flush()
            res = subprocess.run([nvdisasm(), "-b", "SM75", f.name],
                                 capture_output=True, text=True, check=True)
        lines = [l for l in res.stdout.splitlines()
                 if l.lstrip().startswith("/*") and l.rstrip().endswith(";")]
        if len(lines) != len(chunk):
            sys.exit(f"nvdisasm gave {len(lines)} lines for {len(chunk)} words")
        for v, line in zip(chunk, lines):
            text = line.split("*/", 1)[1].rstrip()
            if template is FFMA:
                head, tail = "FFMA R10, R9, R11, ", " ;"
            else:
                head, tail = "DADD R14, R6, ", ";"
            i = text.index(head)
            if not text.endswith(tail):
                sys.exit(f"unexpected line for {v:#x}: {line!r}")
            out.append(text[i + len(head):len(text) - len(tail)])
    return out


# ---------------------------------------------------------------------------
# The model (what nak/src/runtime/fmt_float.rs implements), for --check only.

def model_value(x):
    if math.isinf(x):
        return "+INF " if x > 0 else "-INF "
    if x == 0:
        return "-0.0 " if math.copysign(1.0, x) < 0 else "0"
    if abs(x) >= 1e9:
        return "%.20e" % x
    return "%.20g" % x


def model_f32(v):
    if (v >> 23) & 0xFF == 0xFF and v & 0x7FFFFF:
        return ("-" if v >> 31 else "+") + ("QNAN " if v & 0x400000 else "SNAN ")
    return model_value(struct.unpack("<f", struct.pack("<I", v))[0])


def model_f64(v):
    if (v >> 52) & 0x7FF == 0x7FF and v & ((1 << 52) - 1):
        return ("-" if v >> 63 else "+") + ("QNAN " if v >> 51 & 1 else "SNAN ")
    return model_value(struct.unpack("<d", struct.pack("<Q", v))[0])


# ---------------------------------------------------------------------------
# Vector selection

def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64_hi(x):
    """High word of the double nearest to x whose low word is zero (truncated)."""
    return struct.unpack("<Q", struct.pack("<d", x))[0] >> 32


def is_tie(m, q, p):
    """m * 2^q (m odd) rounded to p significant digits is an exact tie."""
    n = m * 5 ** (-q) if q < 0 else m << q
    s = str(n)
    return len(s) > p and s[p] == "5" and s[p + 1:].strip("0") == ""


def tie_cases(mant_bits, qmin, rnd, per_q):
    """(m, q) with m odd, m < 2^mant_bits, m*2^q < 1e9 rounding to a tie.

    Only fractions can tie (an integer m*2^q whose 22+ digit expansion ends
    in 5000... would need q <= 10, too small for 22 digits).  For q < 0 the
    value is m*5^-q / 10^-q and m*5^-q is odd and a multiple of 5, so it
    ends in 5: it is a tie at 20 digits exactly when it has 21 digits."""
    out = []
    for q in range(qmin, 0):
        k = -q
        lo = -(-10 ** 20 // 5 ** k)
        hi = min(10 ** 21 // 5 ** k, (1 << mant_bits) - 1)
        if lo > hi:
            continue
        cands = set()
        for _ in range(per_q * 8):
            m = rnd.randint(lo, hi) | 1
            if m <= hi and m * 2.0 ** q < 1e9 and is_tie(m, q, 20):
                cands.add(m)
            if len(cands) >= per_q:
                break
        out += [(m, q) for m in sorted(cands)]
    return out


def f32_of(m, q):
    x = m * 2.0 ** q
    b = f32_bits(x)
    assert struct.unpack("<f", struct.pack("<I", b))[0] == x
    return b


def select_f32(rnd):
    v = set()
    # specials and NaN payloads
    v |= {0, 0x80000000, 0x7F800000, 0xFF800000}
    for s in (0, 0x80000000):
        v |= {s | p for p in (0x7F800001, 0x7FBFFFFF, 0x7FC00000, 0x7FC00001,
                              0x7FFFFFFF, 0x7FA00000, 0x7FE00000)}
        v |= {s | 0x7F800000 | rnd.randrange(1, 1 << 23) for _ in range(8)}
    # denormals
    v |= {1, 2, 3, 5, 0x7FFFFF, 0x7FFFFE, 0x400000, 0x3FFFFF, 0x555555, 0x2AAAAA}
    v |= {0x80000001, 0x807FFFFF, 0x80400000}
    v |= {rnd.randrange(1, 1 << 23) for _ in range(40)}
    # normal limits
    v |= {0x00800000, 0x00800001, 0x7F7FFFFF, 0x7F7FFFFE, 0x80800000, 0xFF7FFFFF}
    # every power of two (denormal ones are 1 << n), some negated; neighbours
    for e in range(1, 255):
        v.add(e << 23)
        if e % 5 == 0:
            v |= {(e << 23) | 0x80000000, (e << 23) + 1, (e << 23) - 1}
    v |= {1 << n for n in range(23)}
    # integers, powers of ten, the 1e9 switch
    v |= {f32_bits(float(i)) for i in range(0, 130)}
    v |= {f32_bits(-float(i)) for i in range(1, 20)}
    for k in range(-45, 39):
        b = f32_bits(float("1e%d" % k))
        v |= {b, b - 1, b + 1} if b > 1 else {b}
    big = f32_bits(1e9)
    v |= set(range(big - 4, big + 5)) | {big | 0x80000000, (big - 1) | 0x80000000}
    v |= {f32_bits(x) for x in (16777215.0, 16777216.0, 16777218.0, 2.0 ** 31,
                                2.0 ** 32, 65504.0, 123456.703125, 100.5, -123.5,
                                0.1, 0.2, 0.3, 1 / 3, 2 / 3, math.pi, math.e,
                                1.1, 1e-4, 1.5e-4, 9.99e-5, 0.001, 1.5, -1.5)}
    # exact ties at the 20th significant digit
    v |= {f32_of(m, q) for m, q in tie_cases(24, -149, rnd, 2)}
    # random bit patterns, and random values in the plain-notation range
    v |= {rnd.getrandbits(32) for _ in range(1200)}
    v |= {rnd.randrange(0x38D1B717, 0x4E6E6B28) for _ in range(400)}
    return sorted(v)


def select_f64(rnd):
    v = set()
    v |= {0, 0x80000000, 0x7FF00000, 0xFFF00000}
    for s in (0, 0x80000000):
        v |= {s | p for p in (0x7FF00001, 0x7FF7FFFF, 0x7FF80000, 0x7FF80001,
                              0x7FFFFFFF, 0x7FF40000, 0x7FFC0000)}
        v |= {s | 0x7FF00000 | rnd.randrange(1, 1 << 20) for _ in range(6)}
    v |= {1, 2, 3, 0xFFFFF, 0xFFFFE, 0x80000, 0x55555, 0x80000001, 0x800FFFFF}
    v |= {rnd.randrange(1, 1 << 20) for _ in range(30)}
    v |= {0x00100000, 0x00100001, 0x7FEFFFFF, 0x7FEFFFFE, 0x80100000, 0xFFEFFFFF}
    v |= {1 << n for n in range(20)}
    for e in range(1, 2047, 4):
        v.add(e << 20)
    for e in range(1, 2047, 50):
        v |= {(e << 20) | 0x80000000, (e << 20) + 1, (e << 20) - 1}
    v |= {f64_hi(float(i)) for i in range(0, 130)}
    v |= {f64_hi(-float(i)) for i in range(1, 20)}
    for k in range(-320, 309, 4):
        v.add(f64_hi(float("1e%d" % k)))
    big = f64_hi(1e9)  # 1e9 is exact with a zero low word
    v |= set(range(big - 4, big + 5)) | {big | 0x80000000}
    v |= {f64_hi(x) for x in (0.5, 1.5, -1.5, 2.0, 65504.0, 2.0 ** 53, 2.0 ** 64,
                              1e-4, 9.999e-5, 0.1, math.pi)}
    # ties (21 significant bits in a high-word double)
    for m, q in tie_cases(21, -1074, rnd, 1):
        x = m * 2.0 ** q
        b = struct.unpack("<Q", struct.pack("<d", x))[0]
        if b & 0xFFFFFFFF == 0:
            v.add(b >> 32)
    v |= {rnd.getrandbits(32) for _ in range(800)}
    v |= {rnd.randrange(0x3F1A36E2, 0x41CDCD65) for _ in range(200)}
    return sorted(v)


def main():
    args = sys.argv[1:]
    check = 0
    if "--check" in args:
        i = args.index("--check")
        check = int(args[i + 1])
        del args[i:i + 2]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out_path = args[0] if args else os.path.join(
        root, "nak", "tests", "data", "float_vectors.txt")

    rnd = random.Random(20240601)
    v32 = select_f32(rnd)
    v64 = select_f64(rnd)
    t32 = disasm(FFMA, v32)
    t64 = disasm(DADD, v64)
    lines = [
        "# nvdisasm 13.x (-b SM75) texts of float immediates; made by",
        "# scripts/gen_float_vectors.py.  f32: FFMA imm; f64: DADD imm (high",
        "# word encoded, low word zero).  Text is verbatim: specials keep",
        "# nvdisasm's trailing blank.",
    ]
    lines += ["f32\t%08x\t%s" % (b, t) for b, t in zip(v32, t32)]
    lines += ["f64\t%016x\t%s" % (b << 32, t) for b, t in zip(v64, t64)]
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    bad = sum(model_f32(b) != t for b, t in zip(v32, t32))
    bad += sum(model_f64(b << 32) != t for b, t in zip(v64, t64))
    print(f"wrote {len(v32)} f32 + {len(v64)} f64 vectors to {out_path}; "
          f"{bad} differ from the printf model")

    if check:
        crnd = random.Random()
        c32 = [crnd.getrandbits(32) for _ in range(check)]
        c64 = [crnd.getrandbits(32) for _ in range(check)]
        m = sum(model_f32(b) != t for b, t in zip(c32, disasm(FFMA, c32)))
        m += sum(model_f64(b << 32) != t for b, t in zip(c64, disasm(DADD, c64)))
        print(f"--check: {2 * check} random immediates, {m} mismatches")
        bad += m
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
