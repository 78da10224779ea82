//! A kernel's `.nv.info.NAME` attributes that name instruction offsets:
//! nvdisasm puts a label at each of them (see `labels`), and the indirect
//! branch table also annotates the branch (`(*"BRANCH_TARGETS ..."*)`).
//!
//! Each attribute is `format, code` and then: nothing more (format 1..3
//! keep a 2-byte value in the same 4 bytes) or a 2-byte size and that many
//! bytes (format 4).

/// Exit instructions (`EIATTR_EXIT_INSTR_OFFSETS`): a list of offsets.
const EXIT_OFFSETS: u8 = 0x1c;
/// `EIATTR_S2RCTAID_INSTR_OFFSETS`: a list of offsets.
const S2RCTAID_OFFSETS: u8 = 0x1d;
/// `EIATTR_COOP_GROUP_INSTR_OFFSETS`: a list of offsets.
const COOP_GROUP_OFFSETS: u8 = 0x28;
/// `EIATTR_ATOM16_EMUL_INSTR_REG_MAP`: (offset, register map) pairs.
const ATOM16_EMUL: u8 = 0x2e;
/// `EIATTR_INT_WARP_WIDE_INSTR_OFFSETS`: a list of offsets.
const WARP_WIDE_OFFSETS: u8 = 0x31;
/// `EIATTR_INDIRECT_BRANCH_TARGETS`: per branch, its offset, a call flag,
/// a target count and the targets.
const INDIRECT_BRANCHES: u8 = 0x34;
/// `EIATTR_MBARRIER_INSTR_OFFSETS`: 16-byte records, the offset first.
const MBARRIER_OFFSETS: u8 = 0x39;
/// `EIATTR_INSTR_REG_MAP`: 12-byte records (offset, kind, ...); nvdisasm
/// labels those of kind 1 only (one cubin each for SM90..SM120 shows it).
const INSTR_REG_MAP: u8 = 0x40;
/// `EIATTR_SYSCALL_OFFSETS`: a list of offsets.
const SYSCALL_OFFSETS: u8 = 0x46;

/// One indirect branch: where it is and where it may go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Indirect {
    pub at: u64,
    /// An indirect call (`(*"INDIRECT_CALL"*)`), not a branch.
    pub call: bool,
    pub targets: Vec<u64>,
}

/// The offsets nvdisasm labels, in the order it numbers them, and the
/// indirect branches. `all_kinds`: nvdisasm 13 labels every kind above;
/// 11.8 only the indirect branches and their targets.
pub fn label_offsets(data: &[u8], all_kinds: bool) -> (Vec<u64>, Vec<Indirect>) {
    let mut offsets = Vec::new();
    let mut indirect = Vec::new();
    for (code, body) in attributes(data) {
        let words: Vec<u64> = body
            .chunks_exact(4)
            .map(|c| u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect();
        match code {
            INDIRECT_BRANCHES => {
                let mut rest = &words[..];
                while let [at, call, n, tail @ ..] = rest {
                    let n = (*n as usize).min(tail.len());
                    offsets.push(*at);
                    offsets.extend_from_slice(&tail[..n]);
                    indirect.push(Indirect {
                        at: *at,
                        call: *call != 0,
                        targets: tail[..n].to_vec(),
                    });
                    rest = &tail[n..];
                }
            }
            _ if !all_kinds => {}
            EXIT_OFFSETS | S2RCTAID_OFFSETS | COOP_GROUP_OFFSETS | WARP_WIDE_OFFSETS
            | SYSCALL_OFFSETS => offsets.extend_from_slice(&words),
            ATOM16_EMUL => offsets.extend(words.iter().step_by(2)),
            MBARRIER_OFFSETS => offsets.extend(words.iter().step_by(4)),
            INSTR_REG_MAP => offsets.extend(
                words
                    .chunks_exact(3)
                    .filter(|r| r[1] & 0xff == 1)
                    .map(|r| r[0]),
            ),
            _ => {}
        }
    }
    (offsets, indirect)
}

/// The attributes as (code, value bytes); a truncated last one is dropped.
fn attributes(data: &[u8]) -> Vec<(u8, &[u8])> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&[format, code, lo, hi]) = data.get(i..i + 4).and_then(|s| s.first_chunk()) {
        if format == 4 {
            let n = usize::from(u16::from_le_bytes([lo, hi]));
            let Some(body) = data.get(i + 4..i + 4 + n) else {
                break;
            };
            out.push((code, body));
            i += 4 + n;
        } else {
            out.push((code, &data[i + 2..i + 4]));
            i += 4;
        }
    }
    out
}
