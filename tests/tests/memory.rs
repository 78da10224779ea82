//! Loads and stores on the CPU runner, and the pass that combines them
//! (`passes::combine_mem`): two accesses become one wider access only where
//! the known-bits analysis proves the wider alignment. Per family, the
//! address of lane `id` is `base + 16*id` (always 16-byte aligned when the
//! base is) or `base + 12*id` (the `3*id` words case: only 4-byte aligned,
//! so never combined; a 64-bit store there faults for odd ids).

use nak::backend::ir::Function;
use nak::backend::ir::text::{parse_function, print_function};
use nak::backend::passes::{assemble::assemble, legalize::legalize};
use nak::backend::runner::{CpuRunner, LANES, Runner, WarpState};
use nak::isa;
use nak::runtime::mem::MemSpace;
use nak::runtime::sample::Rng;

/// How one family spells what the tests need: R6:R7 = R4:R5 + `scale`*R0,
/// and the load/store mnemonics with a size suffix (`""`, `.64`, ...).
struct Syntax {
    sm: u32,
    addr: fn(u32) -> String,
    ldg: &'static str,
    stg: &'static str,
}

fn imad_wide(scale: u32) -> String {
    format!("IMAD.WIDE R6, R0, {scale:#x}, R4")
}

/// Maxwell has no IMAD.WIDE: ISCADD shifts and adds the low word (the
/// test's base is small, so the high word is the base's).
fn iscadd(scale: u32) -> String {
    match scale {
        16 => "ISCADD R6, R0, R4, 0x4\n    MOV R7, R5".into(),
        12 => "ISCADD R6, R0, R0, 0x1\n    ISCADD R6, R6, R4, 0x2\n    MOV R7, R5".into(),
        s => panic!("no Maxwell address sequence for scale {s}"),
    }
}

fn targets() -> Vec<Syntax> {
    let maxwell = |sm| Syntax {
        sm,
        addr: iscadd,
        ldg: "LDG.E{}",
        stg: "STG.E{}",
    };
    let all = [
        maxwell(50),
        maxwell(52),
        maxwell(60),
        Syntax {
            sm: 70,
            addr: imad_wide,
            ldg: "LDG.E{}.SYS",
            stg: "STG.E{}.SYS",
        },
        Syntax {
            sm: 75,
            addr: imad_wide,
            ldg: "LDG.E{}.SYS",
            stg: "STG.E{}.SYS",
        },
    ];
    let v: Vec<Syntax> = all
        .into_iter()
        .filter(|s| isa::ALL_SMS.contains(&s.sm))
        .collect();
    assert!(!v.is_empty(), "no target with loads and stores");
    v
}

fn mn(pattern: &str, size: &str) -> String {
    pattern.replace("{}", size)
}

const BASE: u64 = 0x100;

fn state(rng: &mut Rng) -> WarpState {
    let mut st = WarpState {
        global: (0..4096).map(|_| rng.next_u64() as u8).collect(),
        ..WarpState::default()
    };
    for l in 0..LANES {
        st.gpr[l][0] = l as u32;
        st.gpr[l][4] = BASE as u32;
        st.gpr[l][5] = (BASE >> 32) as u32;
        for r in 8..12 {
            st.gpr[l][r] = rng.next_u64() as u32;
        }
    }
    st
}

fn parse(sm: u32, align: Option<u32>, body: &[String]) -> Function {
    let mut text = format!(".sm {sm}\n");
    if let Some(a) = align {
        text.push_str(&format!(".align R4 {a}\n"));
    }
    text.push_str("bb0:\n");
    for l in body {
        text.push_str(&format!("    {l}\n"));
    }
    text.push_str("    exit\n");
    parse_function(&text, None).unwrap_or_else(|e| panic!("SM{sm}: {e}\n{text}"))
}

/// Legalize (which combines), assemble and run; the legalized text too.
fn run(f: &Function, st: &WarpState) -> (Result<WarpState, String>, String) {
    let mut g = f.clone();
    legalize(&mut g).unwrap_or_else(|e| panic!("legalize: {e}\n{}", print_function(f)));
    let text = print_function(&g);
    let code = assemble(&g).unwrap_or_else(|e| panic!("assemble: {e}\n{text}"));
    let mut out = st.clone();
    let r = CpuRunner::default()
        .run(f.sm, &code, &mut out)
        .map_err(|e| e.to_string());
    (r.map(|_| out), text)
}

/// Whether the backend can copy a constant into a register on `sm`.
fn constant_copy_exists(sm: u32) -> bool {
    use nak::runtime::operand::{Reg, Src};
    nak::backend::passes::hwops::copy_op(sm, Reg::gpr(0), Src::cbuf(0, 0x10)).is_some()
}

fn count(text: &str, what: &str) -> usize {
    text.lines()
        .filter(|l| l.trim_start().starts_with(what))
        .count()
}

/// Four 32-bit stores at base + 16*id: one 128-bit store when the base is
/// known 16-byte aligned, two 64-bit ones at 8, four without a promise;
/// the memory written is the same every time.
#[test]
fn stores_combine_only_as_far_as_alignment_is_proven() {
    let mut rng = Rng::new(0x57);
    for t in targets() {
        let body: Vec<String> = std::iter::once((t.addr)(16))
            .chain((0..4).map(|k| format!("{} [R6+{:#x}], R{}", mn(t.stg, ""), 4 * k, 8 + k)))
            .collect();
        let st = state(&mut rng);
        let mut want = st.global.clone();
        for l in 0..LANES {
            for k in 0..4 {
                let at = BASE as usize + 16 * l + 4 * k;
                want[at..at + 4].copy_from_slice(&st.gpr[l][8 + k].to_le_bytes());
            }
        }
        for (align, wide, n) in [
            (Some(16), ".128", 1),
            (Some(8), ".64", 2),
            (None, "", 4),
            (Some(4), "", 4),
        ] {
            let f = parse(t.sm, align, &body);
            let (got, text) = run(&f, &st);
            let got = got.unwrap_or_else(|e| panic!("SM{} align {align:?}: {e}\n{text}", t.sm));
            assert_eq!(got.global, want, "SM{} align {align:?}:\n{text}", t.sm);
            let stg = mn(t.stg, wide);
            assert_eq!(
                count(&text, &format!("{stg} ")),
                n,
                "SM{} align {align:?}:\n{text}",
                t.sm
            );
            assert_eq!(
                count(&text, "STG"),
                n,
                "SM{} align {align:?}:\n{text}",
                t.sm
            );
            eprintln!("SM{} align {align:?}: {n} store(s)", t.sm);
        }
    }
}

/// The `3*id` words case: 32-bit stores to base + 12*id and +4 stay apart
/// even with a 16-byte aligned base (12*id is only a multiple of 4) and run
/// on every lane; the 64-bit store a careless pass would make faults on
/// the first odd id.
#[test]
fn three_id_stores_are_not_combined() {
    let mut rng = Rng::new(0x3d);
    for t in targets() {
        let body = vec![
            (t.addr)(12),
            format!("{} [R6], R8", mn(t.stg, "")),
            format!("{} [R6+0x4], R9", mn(t.stg, "")),
        ];
        let st = state(&mut rng);
        let f = parse(t.sm, Some(16), &body);
        let (got, text) = run(&f, &st);
        let got = got.unwrap_or_else(|e| panic!("SM{}: {e}\n{text}", t.sm));
        assert_eq!(count(&text, "STG"), 2, "SM{}:\n{text}", t.sm);
        for l in 0..LANES {
            let at = BASE as usize + 12 * l;
            assert_eq!(
                &got.global[at..at + 4],
                &st.gpr[l][8].to_le_bytes(),
                "lane {l}"
            );
            assert_eq!(
                &got.global[at + 4..at + 8],
                &st.gpr[l][9].to_le_bytes(),
                "lane {l}"
            );
        }
        // Combined by hand: lane 1's address is base + 12, not 8-aligned.
        let bad = parse(
            t.sm,
            Some(16),
            &[(t.addr)(12), format!("{} [R6], R8", mn(t.stg, ".64"))],
        );
        let (r, text) = run(&bad, &st);
        let e = r.expect_err(&text);
        assert!(
            e.contains("misaligned") && e.contains("lane 1"),
            "SM{}: {e}",
            t.sm
        );
    }
}

/// Loads combine the same way, and the combined load reads what the four
/// did; a load that overwrites the next one's address, ordered (strong)
/// loads, loads under different guards and narrow (sign-extending) loads
/// stay apart.
#[test]
fn loads_combine_and_read_the_same_data() {
    let mut rng = Rng::new(0x1d);
    for t in targets() {
        let ld = |size: &str| mn(t.ldg, size);
        let body: Vec<String> = std::iter::once((t.addr)(16))
            .chain((0..4).map(|k| format!("{} R{}, [R6+{:#x}]", ld(""), 16 + k, 4 * k)))
            .collect();
        let st = state(&mut rng);
        let f = parse(t.sm, Some(16), &body);
        let (got, text) = run(&f, &st);
        let got = got.unwrap_or_else(|e| panic!("SM{}: {e}\n{text}", t.sm));
        assert_eq!(
            count(&text, &format!("{} ", ld(".128"))),
            1,
            "SM{}:\n{text}",
            t.sm
        );
        for l in 0..LANES {
            for k in 0..4 {
                let at = BASE as usize + 16 * l + 4 * k;
                let w = u32::from_le_bytes(st.global[at..at + 4].try_into().unwrap());
                assert_eq!(got.gpr[l][16 + k], w, "SM{} lane {l} word {k}", t.sm);
            }
        }
        // The first load overwrites the second's address register.
        let f = parse(
            t.sm,
            Some(16),
            &[
                format!("{} R4, [R4]", ld("")),
                format!("{} R5, [R4+0x4]", ld("")),
            ],
        );
        let (_, text) = run(&f, &st);
        assert_eq!(count(&text, "LDG"), 2, "SM{}:\n{text}", t.sm);
        // Ordered (strong) accesses are never combined.
        if t.sm >= 70 {
            let f = parse(
                t.sm,
                Some(16),
                &[
                    "LDG.E.STRONG.GPU R16, [R4]".to_string(),
                    "LDG.E.STRONG.GPU R17, [R4+0x4]".to_string(),
                ],
            );
            let (_, text) = run(&f, &st);
            assert_eq!(count(&text, "LDG"), 2, "SM{}:\n{text}", t.sm);
        }
        // Different guards.
        let f = parse(
            t.sm,
            Some(16),
            &[
                format!("@P0 {} R16, [R4]", ld("")),
                format!("{} R17, [R4+0x4]", ld("")),
            ],
        );
        let (_, text) = run(&f, &st);
        assert_eq!(
            count(&text, "@P0 LDG") + count(&text, "LDG"),
            2,
            "SM{}:\n{text}",
            t.sm
        );
        // Signed narrow loads extend by sign, unsigned by zero.
        let f = parse(
            t.sm,
            Some(16),
            &[
                format!("{} R16, [R4]", ld(".S8")),
                format!("{} R17, [R4+0x1]", ld(".U8")),
                format!("{} R18, [R4+0x2]", ld(".S16")),
                format!("{} R19, [R4+0x2]", ld(".U16")),
            ],
        );
        let (got, text) = run(&f, &st);
        let got = got.unwrap_or_else(|e| panic!("SM{}: {e}\n{text}", t.sm));
        let b = BASE as usize;
        let g = &st.global;
        assert_eq!(got.gpr[0][16], g[b] as i8 as i32 as u32);
        assert_eq!(got.gpr[0][17], g[b + 1] as u32);
        let h = u16::from_le_bytes([g[b + 2], g[b + 3]]);
        assert_eq!(got.gpr[0][18], h as i16 as i32 as u32);
        assert_eq!(got.gpr[0][19], h as u32);
    }
}

/// `.align` prints and parses back.
#[test]
fn align_promises_round_trip() {
    for t in targets() {
        let f = parse(t.sm, Some(16), &[(t.addr)(16)]);
        let text = print_function(&f);
        assert!(text.contains(".align R4 16"), "{text}");
        assert_eq!(parse_function(&text, None).unwrap(), f);
    }
}

/// The memory of `space` lane `lane` sees: global (generic addresses
/// too), the CTA's shared memory or the lane's own local memory.
fn space_mut(st: &mut WarpState, space: MemSpace, lane: usize) -> &mut Vec<u8> {
    match space {
        MemSpace::Global | MemSpace::Generic => &mut st.global,
        MemSpace::Shared => &mut st.shared,
        MemSpace::Local => &mut st.local[lane],
    }
}

/// What an access does to one lane, straight from its `MemAccess` (the
/// model the legalized and encoded op is compared with).
fn model(
    m: &nak::runtime::mem::MemAccess,
    lane: usize,
    addr: u64,
    data: &[u32],
    st: &mut WarpState,
) -> Vec<u32> {
    let at = addr.wrapping_add(m.offset as u64) as usize;
    let n = m.bytes as usize;
    let buf = space_mut(st, m.space, lane);
    match m.kind {
        nak::runtime::mem::MemKind::Load => {
            let b = &buf[at..at + n];
            if n < 4 {
                let mut w = [0u8; 4];
                w[..n].copy_from_slice(b);
                let v = u32::from_le_bytes(w);
                let sh = 32 - 8 * n as u32;
                vec![if m.signed {
                    ((v << sh) as i32 >> sh) as u32
                } else {
                    v
                }]
            } else {
                b.chunks(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                    .collect()
            }
        }
        nak::runtime::mem::MemKind::Store => {
            let bytes: Vec<u8> = data.iter().flat_map(|w| w.to_le_bytes()).collect();
            buf[at..at + n].copy_from_slice(&bytes[..n]);
            Vec::new()
        }
    }
}

/// Every memory op of the spec on every SM that has it (found through
/// `Op::mem_access`, no list): random instances (sizes, cache hints), the
/// address in a register (a pair for global and generic addresses) or a
/// constant buffer, legalized, encoded, decoded and run, do what the
/// `[memory]` table says on every lane, in the memory of its space
/// (global, the CTA's shared memory, each lane's local memory). Accesses
/// whose address is more than a + off (a scale, an added uniform
/// register: `[memory] ordered`) are left out: the table does not say it.
#[test]
fn every_memory_op_legalizes_to_what_its_table_says() {
    let mut rng = Rng::new(0x3e3);
    let mut checked = std::collections::BTreeSet::new();
    let mut spaces = std::collections::BTreeSet::new();
    for &sm in isa::ALL_SMS {
        for w in nak::runtime::sample::sample_words(sm, &[], 6, 5) {
            let Some((mut op, _)) = isa::decode(w, sm) else {
                continue;
            };
            let Some(m) = op.mem_access() else {
                continue;
            };
            if m.bytes == 0 || m.bytes > 16 || !op.mem_combinable() {
                continue;
            }
            let wide = m.space.addr_is_64();
            // Offsets in the buffer, aligned; data in R16.. (4-aligned).
            let off = (rng.next_u64() % 8) as i64 * 16;
            let Some(o) = op.with_mem_at(off, nak::runtime::operand::Reg::gpr(16)) else {
                continue;
            };
            op = o;
            let k_addr = (0..op.src_info().len())
                .find(|&k| op.src_info()[k].ty.regs() == 1 + wide as u8 && *op.src(k) == m.addr)
                .expect("the address source");
            // An address in a constant bank, where a copy of a constant to
            // a register exists: SM100+ ALU ops read no constants, and LDC
            // as a copy needs the constant bank in the runner (not yet).
            let in_cbuf = rng.next_u64() & 1 == 1 && constant_copy_exists(sm);
            *op.src_mut(k_addr) = if in_cbuf {
                nak::runtime::operand::Src::cbuf(0, 0x10)
            } else {
                nak::runtime::operand::Src::reg(nak::runtime::operand::Reg::gpr(4))
            };
            let m = op.mem_access().expect("still a memory op");
            let mut st = state(&mut rng);
            let window = BASE as usize + 256 * (LANES + 1);
            st.global.resize(window, 0x5a);
            st.shared = (0..window).map(|_| rng.next_u64() as u8).collect();
            st.local = (0..LANES)
                .map(|_| {
                    (0..BASE as usize + 256)
                        .map(|_| rng.next_u64() as u8)
                        .collect()
                })
                .collect();
            // Each lane its own 256-byte window (local memory is the lane's own).
            let lane_addr = |l: usize| match m.space {
                MemSpace::Local => BASE,
                _ => BASE + 256 * l as u64,
            };
            for l in 0..LANES {
                for r in 16..20 {
                    st.gpr[l][r] = rng.next_u64() as u32;
                }
                let a = lane_addr(l);
                st.gpr[l][4] = a as u32;
                st.gpr[l][5] = if wide {
                    (a >> 32) as u32
                } else {
                    rng.next_u64() as u32
                };
            }
            if in_cbuf {
                // One address for all lanes: loads only (stores would race).
                if m.kind == nak::runtime::mem::MemKind::Store {
                    continue;
                }
                let mut cb = vec![0u8; 0x20];
                cb[0x10..0x18].copy_from_slice(&BASE.to_le_bytes());
                st.cbuf = vec![cb];
            }
            let mut want = st.clone();
            for l in 0..LANES {
                let addr = if in_cbuf { BASE } else { lane_addr(l) };
                let data: Vec<u32> = (0..4).map(|r| st.gpr[l][16 + r]).collect();
                let got = model(&m, l, addr, &data, &mut want);
                for (r, v) in got.into_iter().enumerate() {
                    want.gpr[l][16 + r] = v;
                }
            }
            let f = Function::from_instrs(sm, vec![nak::backend::ir::Instr::hw(op)]);
            let (got, text) = run(&f, &st);
            let got = got.unwrap_or_else(|e| panic!("SM{sm}: {e}\n{text}"));
            assert_eq!(got.global, want.global, "SM{sm}:\n{text}");
            assert_eq!(got.shared, want.shared, "SM{sm}:\n{text}");
            assert_eq!(got.local, want.local, "SM{sm}:\n{text}");
            for l in 0..LANES {
                assert_eq!(
                    got.gpr[l][16..20],
                    want.gpr[l][16..20],
                    "SM{sm} lane {l}:\n{text}"
                );
            }
            checked.insert((sm, op.name()));
            spaces.insert(format!("{:?}", m.space));
        }
    }
    println!("memory ops checked: {checked:?}");
    assert!(checked.len() >= 4, "{checked:?}");
    // The spec has global, shared and local accesses on every family.
    for s in ["Global", "Shared", "Local"] {
        assert!(spaces.contains(s), "no {s} access checked: {spaces:?}");
    }
}
