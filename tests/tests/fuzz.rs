//! Bounded fuzzing in the suite (issue 23 item 3): each target of
//! `isa_tests::fuzz` runs a few seconds' worth of rounds from a fixed seed
//! and must not panic (the spec target also requires every diagnostic to
//! name a file and line). `scripts/fuzz.sh TARGET SECONDS` runs longer with
//! fresh seeds; FUZZING.md records the long runs.

use isa_tests::fuzz;

fn run(target: &str, rounds: u64) {
    match fuzz::run(target, 0x5eed_f022, rounds) {
        Ok(st) => println!(
            "fuzz {target}: {} inputs, {} accepted",
            st.inputs, st.accepted
        ),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn dis_random_and_mutated_words() {
    run("dis", 200);
}

#[test]
fn asm_mutated_corpus_lines() {
    run("asm", 100);
}

#[test]
fn ir_mutated_functions() {
    run("ir", 2000);
}

#[test]
fn cubin_mutated_files() {
    run("cubin", 300);
}

#[test]
fn spec_mutated_files() {
    run("spec", 8);
}

/// What the long runs found, kept (FUZZING.md).
#[test]
fn found_by_fuzzing() {
    // A packed pair took the token of the next operand, and the operand
    // after it read past the line's end (a panic).
    let e = nak::dis::listing::assemble(60, "HSET2.BF.EQU.AND R7, 5, 6, PT\n")
        .expect_err("too few operands");
    assert!(e[0].message.contains("too few operands"), "{:?}", e);
    // Maxwell's `ATOMS.CAS.64 ..., RZ, RZ` holds RZ in either register
    // field (bit 28 or 29 says which): two encodings, one text, so the one
    // the assembler does not write is non-canonical, not broken.
    let w: u128 = 0xee56_960c_2ffe_a176;
    let d = nak::dis::stream::Decoded {
        addr: 8,
        word: w,
        instr: nak::isa::decode(w, 53),
    };
    match nak::dis::canonical::verdict(53, &d) {
        Some(nak::dis::canonical::Verdict::NonCanonical { canonical, why }) => {
            assert_eq!(canonical, 0xee56_960c_1ffe_a176);
            assert!(why.contains("atoms_cas"), "{why}");
        }
        v => panic!("{v:?}"),
    }
}
