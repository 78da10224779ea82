//! Register names as static strings (`R0`..`R254`, `RZ`, `UR0`.., `URZ`,
//! `P0`.., `PT`, `UP0`.., `UPT`, `B0`..), built at compile time so that printing a
//! register is one copy instead of a decimal conversion (`nak dis` prints
//! three or four per instruction).

use crate::runtime::operand::{Reg, RegFile};

const W: usize = 8;

/// Per index: the name's bytes, its length in the last byte.
const fn name_bytes(prefix: &[u8], zero: &[u8], zero_idx: usize) -> [[u8; W]; 256] {
    let mut t = [[0u8; W]; 256];
    let mut i = 0;
    while i < 256 {
        let mut buf = [0u8; W];
        let mut n = 0;
        if i == zero_idx {
            while n < zero.len() {
                buf[n] = zero[n];
                n += 1;
            }
        } else {
            while n < prefix.len() {
                buf[n] = prefix[n];
                n += 1;
            }
            if i >= 100 {
                buf[n] = b'0' + (i / 100) as u8;
                n += 1;
            }
            if i >= 10 {
                buf[n] = b'0' + (i / 10 % 10) as u8;
                n += 1;
            }
            buf[n] = b'0' + (i % 10) as u8;
            n += 1;
        }
        buf[W - 1] = n as u8;
        t[i] = buf;
        i += 1;
    }
    t
}

static GPR_BYTES: [[u8; W]; 256] = name_bytes(b"R", b"RZ", 255);
static UGPR_BYTES: [[u8; W]; 256] = name_bytes(b"UR", b"URZ", 255);
static PRED_BYTES: [[u8; W]; 256] = name_bytes(b"P", b"PT", 7);
static UPRED_BYTES: [[u8; W]; 256] = name_bytes(b"UP", b"UPT", 7);
// No zero register: index 256 is never reached.
static BAR_BYTES: [[u8; W]; 256] = name_bytes(b"B", b"", 256);

const fn strs(bytes: &'static [[u8; W]; 256]) -> [&'static str; 256] {
    let mut out = [""; 256];
    let mut i = 0;
    while i < 256 {
        let b = &bytes[i];
        let (s, _) = b.split_at(b[W - 1] as usize);
        out[i] = match std::str::from_utf8(s) {
            Ok(s) => s,
            Err(_) => "",
        };
        i += 1;
    }
    out
}

static GPR: [&str; 256] = strs(&GPR_BYTES);
static UGPR: [&str; 256] = strs(&UGPR_BYTES);
static PRED: [&str; 256] = strs(&PRED_BYTES);
static UPRED: [&str; 256] = strs(&UPRED_BYTES);
static BAR: [&str; 256] = strs(&BAR_BYTES);

/// The register's name padded to 8 bytes, its length in the last byte:
/// printed as one fixed-size store (see `LineBuf::push_chunk`).
#[inline(always)]
pub fn reg_name_chunk(r: Reg) -> &'static [u8; W] {
    let t = match r.file {
        RegFile::Gpr => &GPR_BYTES,
        RegFile::UGpr => &UGPR_BYTES,
        RegFile::Pred => &PRED_BYTES,
        RegFile::UPred => &UPRED_BYTES,
        RegFile::Bar => &BAR_BYTES,
    };
    &t[r.idx as usize]
}

/// The register's name as nvdisasm prints it.
#[inline]
pub fn reg_name(r: Reg) -> &'static str {
    let t = match r.file {
        RegFile::Gpr => &GPR,
        RegFile::UGpr => &UGPR,
        RegFile::Pred => &PRED,
        RegFile::UPred => &UPRED,
        RegFile::Bar => &BAR,
    };
    t[r.idx as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_display() {
        for file in [
            RegFile::Gpr,
            RegFile::UGpr,
            RegFile::Pred,
            RegFile::UPred,
            RegFile::Bar,
        ] {
            for idx in 0..=255u8 {
                let r = Reg { file, idx };
                assert_eq!(reg_name(r), r.to_string(), "{file:?} {idx}");
                let c = reg_name_chunk(r);
                assert_eq!(&c[..c[7] as usize], r.to_string().as_bytes());
            }
        }
    }

    /// The barrier file has no zero register: B0..B15 print and parse back
    /// as themselves, none is the zero register, and the encoder refuses an
    /// index the SM's file lacks (the spec's count, 16).
    #[test]
    fn barrier_registers_round_trip() {
        use crate::runtime::asm::parse_reg;
        use crate::runtime::encode::reg_index;
        for idx in 0..16u8 {
            let r = Reg::bar(idx);
            assert!(!r.is_zero());
            assert_eq!(parse_reg(reg_name(r)), Some(r));
            let field = reg_index("bmov", "d", r, RegFile::Bar, 90);
            assert_eq!(field.ok(), Some(u128::from(idx)));
        }
        assert!(reg_index("bmov", "d", Reg::bar(16), RegFile::Bar, 90).is_err());
        assert!(reg_index("bmov", "d", Reg::bar(7), RegFile::Bar, 60).is_err());
    }
}
