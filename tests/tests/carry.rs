//! Maxwell's CC carry flag: IADD `.CC` writes the adder's carry, `.X`
//! reads it (the spec's `reads_cc`/`writes_cc`/`cc_out`). Carry chains run
//! on the CPU runner against Rust's wide arithmetic, 64-bit add/sub lower to
//! two instructions, and constant folding follows the carry.

use nak::backend::ir::text::{parse_function, print_function};
use nak::backend::ir::{Function, Instr, Op64, VOp, VReg, VSrc};
use nak::backend::passes::{assemble::assemble, constfold::fold_constants, legalize::legalize};
use nak::backend::runner::{CpuRunner, LANES, Runner, WarpState};
use nak::isa;
use nak::runtime::operand::Reg;
use nak::runtime::sample::Rng;

fn maxwell() -> Vec<u32> {
    let v: Vec<u32> = [50u32, 52, 60]
        .into_iter()
        .filter(|s| isa::ALL_SMS.contains(s))
        .collect();
    assert!(!v.is_empty());
    v
}

fn run(f: &Function, st: &WarpState) -> WarpState {
    let mut g = f.clone();
    legalize(&mut g).unwrap_or_else(|e| panic!("legalize: {e}"));
    let code = assemble(&g).unwrap_or_else(|e| panic!("assemble: {e}\n{}", print_function(&g)));
    let mut out = st.clone();
    CpuRunner::default()
        .run(f.sm, &code, &mut out)
        .unwrap_or_else(|e| panic!("run: {e}\n{}", print_function(&g)));
    out
}

fn edge_or_random(rng: &mut Rng) -> u32 {
    match rng.next_u64() % 4 {
        0 => u32::MAX,
        1 => 0,
        _ => rng.next_u64() as u32,
    }
}

/// A 96-bit add and a 96-bit subtraction as carry chains of three IADD
/// (`.CC`, `.X.CC`, `.X`), on random and all-ones data, every lane.
#[test]
fn carry_chains_add_and_subtract_96_bits() {
    let mut rng = Rng::new(0x96);
    for sm in maxwell() {
        let text = format!(
            ".sm {sm}\nbb0:\n    IADD R8.CC, R0, R4\n    IADD.X R9.CC, R1, R5\n    IADD.X R10, R2, R6\n\
             \n    IADD R12.CC, R0, -R4\n    IADD.X R13.CC, R1, -R5\n    IADD.X R14, R2, -R6\n    exit\n"
        );
        let f = parse_function(&text, None).unwrap();
        for _ in 0..20 {
            let mut st = WarpState::default();
            for l in 0..LANES {
                for r in [0, 1, 2, 4, 5, 6] {
                    st.gpr[l][r] = edge_or_random(&mut rng);
                }
            }
            let got = run(&f, &st);
            let wide = |g: &[u32; 256], r: usize| -> u128 {
                g[r] as u128 | (g[r + 1] as u128) << 32 | (g[r + 2] as u128) << 64
            };
            const M96: u128 = (1 << 96) - 1;
            for l in 0..LANES {
                let (a, b) = (wide(&st.gpr[l], 0), wide(&st.gpr[l], 4));
                assert_eq!(
                    wide(&got.gpr[l], 8),
                    (a + b) & M96,
                    "SM{sm} {a:#x} + {b:#x}"
                );
                assert_eq!(
                    wide(&got.gpr[l], 12),
                    a.wrapping_sub(b) & M96,
                    "SM{sm} {a:#x} - {b:#x}"
                );
            }
        }
    }
}

/// 64-bit add and subtract of register pairs lower to IADD.CC + IADD.X.
#[test]
fn add64_and_sub64_are_two_instructions_on_maxwell() {
    for sm in maxwell() {
        for op in [Op64::Add, Op64::Sub] {
            let mut f = Function::from_instrs(
                sm,
                vec![Instr::new(VOp::Wide {
                    op,
                    dst: VReg::new(Reg::gpr(8), 2),
                    a: VSrc::wide(VReg::new(Reg::gpr(0), 2)),
                    b: VSrc::wide(VReg::new(Reg::gpr(2), 2)),
                })],
            );
            legalize(&mut f).unwrap();
            let text = print_function(&f);
            assert_eq!(f.instrs().count(), 2, "SM{sm} {op:?}:\n{text}");
            assert!(
                text.contains("IADD R8.CC") && text.contains("IADD.X R9"),
                "{text}"
            );
        }
    }
}

/// Constant folding through the carry: with known sources the `.X` ops
/// become copies, the carry writers stay (nothing is lost if a reader had
/// not folded), and the results equal running the unfolded code.
#[test]
fn constant_folding_follows_the_carry() {
    let mut rng = Rng::new(0xcf);
    for sm in maxwell() {
        for _ in 0..50 {
            let v: Vec<u32> = (0..6).map(|_| edge_or_random(&mut rng)).collect();
            let text = format!(
                ".sm {sm}\nbb0:\n    MOV32I R0, {:#x}\n    MOV32I R1, {:#x}\n    MOV32I R2, {:#x}\n    \
                 MOV32I R4, {:#x}\n    MOV32I R5, {:#x}\n    MOV32I R6, {:#x}\n    \
                 IADD R8.CC, R0, -R4\n    IADD.X R9.CC, R1, -R5\n    IADD.X R10, R2, -R6\n    exit\n",
                v[0], v[1], v[2], v[3], v[4], v[5]
            );
            let f = parse_function(&text, None).unwrap();
            let mut g = f.clone();
            let n = fold_constants(&mut g);
            let folded = print_function(&g);
            // The last op reads the carry and writes none: it folds.
            assert!(n >= 1 && !folded.contains("IADD.X R10"), "{folded}");
            let st = WarpState::default();
            let want = run(&f, &st);
            let got = run(&g, &st);
            for r in 8..11 {
                assert_eq!(got.gpr[0][r], want.gpr[0][r], "R{r}\n{text}\n{folded}");
            }
        }
    }
}
