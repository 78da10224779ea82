//! Encoders check on a fast path that only flags a failure, then run the
//! same checks again to say why (`nak::encode::Fail`). The message must be
//! the one of the check that failed, and a legal op must encode the same
//! on both paths.

use nak::asm::tokenize;
use nak::isa::{self, Op};
use nak::operand::{Reg, RegFile};

fn parsed(text: &str, sm: u32) -> (Op, nak::instr::Common) {
    let line = tokenize(text).expect("tokenizes");
    isa::parse(&line, sm, 0).expect("parses")
}

/// The refusal's message; the fast path (`try_encode`) must refuse too.
fn refusal(op: &Op, c: &nak::instr::Common, sm: u32) -> String {
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
    assert!(m.contains("no predicate 9"), "{m}");
}
