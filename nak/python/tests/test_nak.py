"""The Python module against the `nak` command: the same instructions as
`nak dis --json` on every cubin of tests/cubins, assembly back to the
words, and a ValueError (never a crash) on bad input.

Run by scripts/test.sh after `maturin develop` into a virtual
environment; NAK_BIN names the `nak` command (default target/debug/nak).
"""

import gzip
import json
import os
import pathlib
import subprocess

import pytest

import nak

ROOT = pathlib.Path(__file__).resolve().parents[3]
NAK_BIN = os.environ.get("NAK_BIN", str(ROOT / "target" / "debug" / "nak"))
CUBINS = sorted((ROOT / "tests" / "cubins").glob("sm_*/*.cubin.gz"))


def as_dict(i):
    """An Instruction as the JSON object `nak dis --json` writes."""
    c = i.control
    return {
        "kernel": i.kernel,
        "addr": i.addr,
        "words": i.words,
        "text": i.text,
        "guard": i.guard,
        "mnemonic": i.mnemonic,
        "modifiers": i.modifiers,
        "operands": [{"kind": o.kind, "text": o.text} for o in i.operands],
        "control": {
            "stall": c.stall,
            "yield": c.yield_,
            "write_barrier": c.write_barrier,
            "read_barrier": c.read_barrier,
            "wait": c.wait,
            "raw": c.raw,
            "text": c.text,
        },
    }


def test_there_are_cubins():
    assert len(CUBINS) >= 50


@pytest.mark.parametrize("cubin", CUBINS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_same_instructions_as_nak_dis_json(cubin, tmp_path):
    data = gzip.decompress(cubin.read_bytes())
    path = tmp_path / "k.cubin"
    path.write_bytes(data)
    out = subprocess.run(
        [NAK_BIN, "dis", "--json", str(path)], capture_output=True, text=True, check=True
    ).stdout
    want = [json.loads(line) for line in out.splitlines()]
    got = [as_dict(i) for i in nak.disassemble(data)]
    assert len(got) == len(want) > 0
    assert got == want


def test_raw_stream_round_trip():
    text = "IMAD.MOV.U32 R2, RZ, RZ, 0x1\n@!P0 EXIT\nLDS R4, [R2+0x10]\n"
    raw = nak.assemble(text, 75)
    assert isinstance(raw, bytes) and len(raw) == 48
    got = nak.disassemble(raw, sm=75)
    assert [i.text for i in got] == text.splitlines()
    assert [i.addr for i in got] == [0, 16, 32]
    assert got[0].kernel is None
    assert got[0].mnemonic == "IMAD" and got[0].modifiers == ["MOV", "U32"]
    assert [o.kind for o in got[0].operands] == ["register"] * 3 + ["immediate"]
    assert got[1].guard == "!P0"
    assert got[2].operands[1].kind == "memory"


def test_maxwell_stream_has_scheduling_words():
    raw = nak.assemble("MOV R1, c[0x0][0x20]\nNOP\n", 50)
    # One scheduling word and three instructions (the last group padded).
    assert len(raw) == 32
    got = nak.disassemble(raw, sm=50)
    assert [i.addr for i in got] == [8, 16, 24]
    assert got[0].text == "MOV R1, c[0x0][0x20]"
    assert len(got[0].words) == 1


def test_unknown_encoding_is_none():
    raw = b"\xff" * 16
    (i,) = nak.disassemble(raw, sm=90)
    assert i.text is None and i.mnemonic == "" and i.operands == []


@pytest.mark.parametrize(
    "data, sm, message",
    [
        (b"\x00" * 16, None, "needs an SM"),
        (b"\x00" * 15, 90, "not a multiple of 16"),
        (b"\x00" * 16, 91, "SM91 is not covered"),
        (b".version 8.0\n.target sm_90\n", None, "PTX"),
        (b"\x7fELF\x02\x01\x01", None, "not a readable cubin"),
        (b"\x50\xed\x55\xba" + b"\x00" * 12, None, "fatbinary"),
    ],
)
def test_bad_input_raises_value_error(data, sm, message):
    with pytest.raises(ValueError, match=message):
        nak.disassemble(data, sm)


def test_cubin_sm_must_agree():
    data = gzip.decompress(next(p for p in CUBINS if p.parent.name == "sm_90").read_bytes())
    with pytest.raises(ValueError, match="SM90"):
        nak.disassemble(data, sm=75)
    assert nak.disassemble(data, sm=90)


def test_assemble_errors_name_the_line():
    with pytest.raises(ValueError, match="line 2"):
        nak.assemble("NOP\nFROB R1\n", 90)
    with pytest.raises(ValueError, match="not covered"):
        nak.assemble("NOP\n", 42)
