//! The warpgroup MMAs' descriptor operand `gdesc[URn]` with its suffixes
//! after the bracket: what the assembler reads back, and what it refuses.

use nak::isa;
use nak::runtime::asm::tokenize;

/// Assemble one SM90 line to its 128-bit word (control bits aside).
fn word(text: &str) -> Result<u128, String> {
    let line = tokenize(text).map_err(|e| e.message)?;
    let (op, c) = isa::parse(&line, 90, 0).map_err(|e| format!("{e:?}"))?;
    op.encode(90, &c).map_err(|e| e.to_string())
}

#[test]
fn descriptor_suffixes_set_their_bits() {
    let base = word("HGMMA.64x16x16.F32 R24, gdesc[UR4], R24, !UP0, gsb0").expect("plain");
    let t =
        word("HGMMA.64x16x16.F32 R24, gdesc[UR4].negA.tnspB, R24, !UP0, gsb0").expect("suffixed");
    // .negA is bit 72 and .tnspB bit 62 (nvdisasm 13, SM90 bit flips).
    assert_eq!(base ^ t, 1 << 72 | 1 << 62);
    assert_eq!(
        (base >> 24) & 0x3f,
        4,
        "the descriptor register UR4 at 24..30"
    );
}

#[test]
fn omitted_scale_d_and_scoreboard_are_upt_and_none() {
    let w = word("HGMMA.64x16x16.F32 R24, gdesc[UR4], R24").expect("short form");
    assert_eq!(
        (w >> 87) & 0xf,
        0,
        "UPT is stored complemented: 0, not negated"
    );
    assert_eq!((w >> 84) & 7, 7, "no scoreboard is code 7");
}

#[test]
fn bad_descriptors_are_refused() {
    for bad in [
        "HGMMA.64x16x16.F32 R24, gdesc[UR4].tnspC, R24",
        "HGMMA.64x16x16.F32 R24, gdesc[P0], R24",
        "HGMMA.64x16x16.F32 R24, gdesc[UR4, R24",
        "HGMMA.64x16x16.F32 R24, UR4, R24",
        "HGMMA.64x16x16.F32 R24, -gdesc[UR4], R24",
    ] {
        assert!(word(bad).is_err(), "{bad} was accepted");
    }
}
