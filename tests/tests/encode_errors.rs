//! Encoders check on a fast path that only flags a failure, then run the
//! same checks again to say why (`nak::runtime::refusal`). The message must be
//! the one of the check that failed, and a legal op must encode the same
//! on both paths.

use nak::isa::{self, Op};
use nak::runtime::asm::tokenize;
use nak::runtime::operand::{Reg, RegFile};

fn parsed(text: &str, sm: u32) -> (Op, nak::runtime::instr::Common) {
    let line = tokenize(text).expect("tokenizes");
    isa::parse(&line, sm, 0).expect("parses")
}

/// The refusal's message; the fast path (`try_encode`) must refuse too.
fn refusal(op: &Op, c: &nak::runtime::instr::Common, sm: u32) -> String {
    assert_eq!(op.try_encode(sm, c), None);
    op.encode(sm, c).expect_err("refused").to_string()
}

#[test]
fn refusals_name_the_failing_check() {
    let (op, c) = parsed("IADD3 R0, R1, R2, R3", 75);
    let w = op.encode(75, &c).expect("encodes");
    assert_eq!(op.try_encode(75, &c), Some(w));
    // Control bits past their 23-bit field.
    let mut big = c;
    big.ctrl = 1 << 23;
    let m = refusal(&op, &big, 75);
    assert!(m.contains("control bits") && m.contains("23 bits"), "{m}");
    // No uniform registers before SM75: no form takes a UGPR source.
    let (op, c) = parsed("IADD3 R0, R1, UR2, R3", 75);
    assert!(op.encode(75, &c).is_ok());
    let m = refusal(&op, &c, 70);
    assert!(m.contains("no form on SM70"), "{m}");
    // A carry-out predicate that does not exist.
    let (mut op, c) = parsed("IADD3 R0, P1, R1, R2, R3", 75);
    *op.dst_mut(1) = Reg {
        file: RegFile::Pred,
        idx: 9,
    };
    let m = refusal(&op, &c, 75);
    assert!(m.contains("P9 does not exist on SM75"), "{m}");
}

/// A part selector must name a part of its source's type: a half has
/// parts 0 and 1 only (nvdisasm prints `.INVALID2` for 2), and the text
/// parser rejects a part the type does not have.
#[test]
fn part_selectors_name_a_part_of_the_type() {
    let (op, c) = parsed("I2F.F16.S16 R9, R3.H1", 90);
    let w = op.encode(90, &c).expect("encodes");
    assert_eq!((w >> 60) & 3, 1, "H1 is selector 1 at bits 60..62");
    let (op, c) = parsed("I2F.F16.S8 R9, R3.B3", 90);
    assert_eq!((op.encode(90, &c).expect("encodes") >> 60) & 3, 3);
    let Op::I2f(mut i2f) = op else {
        panic!("not I2F")
    };
    i2f.stype = isa::CvtItype32::S16;
    let m = refusal(&Op::I2f(i2f), &c, 90);
    assert!(m.contains("part selector"), "{m}");
    let line = tokenize("I2F.F16.S16 R9, R3.B1").expect("tokenizes");
    assert!(isa::parse(&line, 90, 0).is_err(), "B1 is no part of an S16");
}
