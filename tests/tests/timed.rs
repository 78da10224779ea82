//! The timed runner (`nak::backend::runner::TimedRunner`): results land
//! when the hardware would write them, so a program with a hazard gives a
//! wrong result for some seed, and the scheduling pass's output gives the
//! untimed runner's result for every seed. Programs: random arithmetic,
//! loads, stores, forward branches on per-lane values and a counted loop,
//! in each family's syntax.

use nak::backend::ir::Function;
use nak::backend::ir::text::{parse_function, print_function};
use nak::backend::passes::{assemble::assemble, legalize::legalize, schedule::schedule};
use nak::backend::runner::{CpuRunner, LANES, Runner, TimedRunner, WarpState};
use nak::runtime::sample::Rng;

/// How one SM spells what the programs need: the per-lane address
/// R6:R7 = R4:R5 + 16*R0, ALU ops over registers, loads and stores.
struct Target {
    sm: u32,
    addr: &'static str,
    alu: &'static [&'static str],
    ld: &'static str,
    st: &'static str,
    dec: &'static str,
}

const MAXWELL_ALU: &[&str] = &[
    "IADD {d}, {a}, {b}",
    "LOP.XOR {d}, {a}, {b}",
    "SHL {d}, {a}, 0x3",
    "POPC {d}, {a}",
    "XMAD {d}, {a}, {b}, {c}",
];
/// SM100 on: IADD3 names both carry-out predicates.
const BLACKWELL_ALU: &[&str] = &[
    "IADD3 {d}, PT, PT, {a}, {b}, RZ",
    "LOP3.LUT {d}, {a}, {b}, RZ, 0x96, !PT",
    "SHF.L.U32 {d}, {a}, 0x3, RZ",
    "POPC {d}, {a}",
    "IMAD {d}, {a}, {b}, {c}",
];
const VOLTA_ALU: &[&str] = &[
    "IADD3 {d}, {a}, {b}, RZ",
    "LOP3.LUT {d}, {a}, {b}, RZ, 0x96, !PT",
    "SHF.L.U32 {d}, {a}, 0x3, RZ",
    "POPC {d}, {a}",
    "IMAD {d}, {a}, {b}, {c}",
];

fn targets() -> Vec<Target> {
    let maxwell = |sm| Target {
        sm,
        addr: "ISCADD R6, R0, R4, 0x4\n    MOV R7, R5",
        alu: MAXWELL_ALU,
        ld: "LDG.E {d}, [R6+{o}]",
        st: "STG.E [R6+{o}], {a}",
        dec: "IADD R1, R1, -0x1",
    };
    let volta = |sm| Target {
        sm,
        addr: "IMAD.WIDE R6, R0, 0x10, R4",
        alu: VOLTA_ALU,
        ld: "LDG.E.SYS {d}, [R6+{o}]",
        st: "STG.E.SYS [R6+{o}], {a}",
        dec: "IADD3 R1, R1, -0x1, RZ",
    };
    let ampere = |sm| Target {
        ld: "LDG.E {d}, [R6.64+{o}]",
        st: "STG.E [R6.64+{o}], {a}",
        ..volta(sm)
    };
    // SM90 on: a global access names its memory descriptor (the runner
    // reads the address alone).
    let hopper = |sm| Target {
        ld: "LDG.E {d}, desc[UR4][R6.64+{o}]",
        st: "STG.E desc[UR4][R6.64+{o}], {a}",
        ..volta(sm)
    };
    let blackwell = |sm| Target {
        alu: BLACKWELL_ALU,
        dec: "IADD3 R1, PT, PT, R1, -0x1, RZ",
        ..hopper(sm)
    };
    [
        maxwell(50),
        maxwell(52),
        maxwell(53),
        maxwell(60),
        maxwell(61),
        maxwell(62),
        volta(70),
        volta(72),
        volta(75),
        ampere(80),
        ampere(86),
        ampere(87),
        ampere(88),
        ampere(89),
        hopper(90),
        blackwell(100),
        blackwell(101),
        blackwell(103),
        blackwell(107),
        blackwell(110),
        blackwell(120),
        blackwell(121),
    ]
    .into_iter()
    .filter(|t| nak::isa::ALL_SMS.contains(&t.sm))
    .collect()
}

const BASE: u32 = 0x100;

fn state(rng: &mut Rng) -> WarpState {
    let mut st = WarpState {
        global: (0..BASE as usize + 16 * LANES + 16)
            .map(|_| rng.next_u64() as u8)
            .collect(),
        ..WarpState::default()
    };
    for l in 0..LANES {
        st.gpr[l][0] = l as u32;
        st.gpr[l][1] = 3;
        st.gpr[l][4] = BASE;
        for r in 8..16 {
            st.gpr[l][r] = rng.next_u64() as u32;
        }
    }
    st
}

/// A random program: blocks of arithmetic, loads and stores over R8..R15,
/// each ending in a branch forward on a per-lane value or falling through;
/// one block loops three times on the counter R1.
fn program(t: &Target, rng: &mut Rng) -> String {
    let mut pick = |n: usize| (rng.next_u64() % n as u64) as usize;
    let reg = |k: usize| format!("R{}", 8 + k % 8);
    let n = 2 + pick(5);
    let looped = pick(n);
    let mut text = format!(".sm {}\nbb0:\n    {}\n", t.sm, t.addr);
    for b in 0..n {
        text.push_str(&format!("bb{}:\n", b + 1));
        for _ in 0..1 + pick(8) {
            let (d, a, bb, c) = (reg(pick(8)), reg(pick(8)), reg(pick(8)), reg(pick(8)));
            let o = format!("{:#x}", 4 * pick(4));
            let line = match pick(10) {
                0..=1 => t.ld.replace("{d}", &d).replace("{o}", &o),
                2 => t.st.replace("{a}", &a).replace("{o}", &o),
                _ => t.alu[pick(t.alu.len())]
                    .replace("{d}", &d)
                    .replace("{a}", &a)
                    .replace("{b}", &bb)
                    .replace("{c}", &c),
            };
            text.push_str(&format!("    {line}\n"));
        }
        if b == looped {
            text.push_str(&format!(
                "    {}\n    ISETP.NE.AND P1, PT, R1, RZ, PT\n    @P1 bra bb{}\n",
                t.dec,
                b + 1
            ));
        } else if b + 1 < n && pick(2) == 0 {
            text.push_str(&format!(
                "    ISETP.NE.AND P0, PT, {}, RZ, PT\n    @P0 bra bb{}\n",
                reg(pick(8)),
                b + 2 + pick(n - b - 1)
            ));
        }
    }
    text.push_str(&format!("bb{}:\n    exit\n", n + 1));
    text
}

fn code(f: &Function) -> Vec<u8> {
    assemble(f).unwrap_or_else(|e| panic!("assemble: {e}\n{}", print_function(f)))
}

fn run(r: &mut dyn Runner, sm: u32, code: &[u8], st: &WarpState) -> Result<WarpState, String> {
    let mut out = st.clone();
    r.run(sm, code, &mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

const SEEDS: u64 = 8;

/// Where two end states differ first: a lane's register, or memory.
fn first_difference(got: &WarpState, want: &WarpState) -> String {
    for l in 0..LANES {
        for r in 0..256 {
            if got.gpr[l][r] != want.gpr[l][r] {
                return format!(
                    "lane {l} R{r}: {:#x}, not {:#x}",
                    got.gpr[l][r], want.gpr[l][r]
                );
            }
        }
    }
    if got.global != want.global {
        return "global memory".into();
    }
    "predicates or other state".into()
}

/// Every SM has a target: the timed runner is checked on all of them.
#[test]
fn every_sm_has_a_target() {
    let have: Vec<u32> = targets().iter().map(|t| t.sm).collect();
    assert_eq!(have, nak::isa::ALL_SMS.to_vec());
}

/// Scheduled, every random program gives the untimed result for every
/// seed; unscheduled (neutral control bits), many do not for some seed.
#[test]
fn scheduled_programs_give_the_reference_result_for_every_seed() {
    let mut rng = Rng::new(0x0071_73ed);
    for t in targets() {
        let (mut programs, mut wrong_unscheduled) = (0, 0);
        for _ in 0..48 {
            let text = program(&t, &mut rng);
            let mut f = parse_function(&text, None).unwrap_or_else(|e| panic!("{e}\n{text}"));
            legalize(&mut f).unwrap_or_else(|e| panic!("legalize: {e}\n{text}"));
            let st = state(&mut rng);
            let unscheduled = code(&f);
            let reference = run(&mut CpuRunner::default(), t.sm, &unscheduled, &st)
                .unwrap_or_else(|e| panic!("SM{}: {e}\n{text}", t.sm));
            wrong_unscheduled += usize::from((0..SEEDS).any(|s| {
                run(&mut TimedRunner::new(s), t.sm, &unscheduled, &st).as_ref() != Ok(&reference)
            }));
            schedule(&mut f).expect("schedules");
            let scheduled = code(&f);
            for s in 0..SEEDS {
                let got = run(&mut TimedRunner::new(s), t.sm, &scheduled, &st)
                    .unwrap_or_else(|e| panic!("SM{} seed {s}: {e}\n{text}", t.sm));
                assert!(
                    got == reference,
                    "SM{} seed {s}: the scheduled program differs from the reference ({})\n{}",
                    t.sm,
                    first_difference(&got, &reference),
                    print_function(&f)
                );
            }
            programs += 1;
        }
        println!(
            "SM{}: {programs} programs x {SEEDS} seeds give the reference scheduled; \
             {wrong_unscheduled} give a wrong result for some seed unscheduled",
            t.sm
        );
        assert!(
            wrong_unscheduled * 2 > programs,
            "SM{}: only {wrong_unscheduled} of {programs} unscheduled programs went wrong",
            t.sm
        );
    }
}

/// The hazards compilers get wrong, one each, found by some seed: a load's
/// result read at once, and a register rewritten while a load to it is
/// still pending (the load lands last and wins).
#[test]
fn each_hazard_gives_a_wrong_result_for_some_seed() {
    for t in targets() {
        let alu0 = t.alu[0];
        let cases = [
            // Read after a load, no wait.
            format!(
                "{}\n    {}\n    {}",
                t.addr,
                t.ld.replace("{d}", "R8").replace("{o}", "0x0"),
                alu0.replace("{d}", "R9")
                    .replace("{a}", "R8")
                    .replace("{b}", "R8")
            ),
            // Rewrite of a load's destination while it is pending.
            format!(
                "{}\n    {}\n    {}",
                t.addr,
                t.ld.replace("{d}", "R8").replace("{o}", "0x0"),
                alu0.replace("{d}", "R8")
                    .replace("{a}", "R9")
                    .replace("{b}", "R9")
            ),
        ];
        let mut rng = Rng::new(u64::from(t.sm));
        for body in cases {
            let text = format!(".sm {}\nbb0:\n    {body}\n    exit\n", t.sm);
            let mut f = parse_function(&text, None).unwrap_or_else(|e| panic!("{e}\n{text}"));
            legalize(&mut f).expect("legalizes");
            let st = state(&mut rng);
            let unscheduled = code(&f);
            let reference = run(&mut CpuRunner::default(), t.sm, &unscheduled, &st).unwrap();
            let wrong = (0..SEEDS)
                .filter(|&s| {
                    run(&mut TimedRunner::new(s), t.sm, &unscheduled, &st).as_ref()
                        != Ok(&reference)
                })
                .count();
            assert!(wrong > 0, "SM{}: no seed shows the hazard in\n{text}", t.sm);
            schedule(&mut f).expect("schedules");
            let scheduled = code(&f);
            for s in 0..SEEDS {
                assert_eq!(
                    run(&mut TimedRunner::new(s), t.sm, &scheduled, &st).as_ref(),
                    Ok(&reference),
                    "SM{} seed {s}\n{text}",
                    t.sm
                );
            }
        }
    }
}
