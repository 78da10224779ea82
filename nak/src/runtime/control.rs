//! Control values (the scheduling bits of each instruction) that the
//! reference disassembler accepts.

use crate::isa::Family;

/// The family's operand-reuse flags in the control value: (low bit,
/// width), or None when it has none (Maxwell keeps them elsewhere).
pub fn reuse_field(family: Family) -> Option<(u32, u32)> {
    let &(_, lo, width) = family.control_fields().iter().find(|f| f.0 == "reuse")?;
    Some((lo, width))
}

/// `ctrl` with the family's `reuse_needs` met when it sets a reuse flag:
/// each field outside its range takes its lowest value. nvdisasm rejects
/// `.reuse` with a stall of 0 on Volta and later (`undefined value ... for
/// table 'TABLES_opex_N'`), so an assembled `R4.reuse` needs a stall and
/// the yield bit; a value that already meets them is kept.
pub fn with_reuse_needs(family: Family, ctrl: u32) -> u32 {
    let Some((lo, width)) = reuse_field(family) else {
        return ctrl;
    };
    if ctrl >> lo & ((1u32 << width) - 1) == 0 {
        return ctrl;
    }
    family
        .reuse_needs()
        .iter()
        .fold(ctrl, |ctrl, &(lo, width, min, max)| {
            let mask = ((1u32 << width) - 1) << lo;
            let v = (ctrl & mask) >> lo;
            if (min..=max).contains(&v) {
                ctrl
            } else {
                ctrl & !mask | min << lo
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::family_of;

    /// Every family's value with a reuse flag meets its needs; one
    /// without, or one that meets them already, is kept.
    #[test]
    fn reuse_flags_get_the_control_values_they_need() {
        for sm in crate::isa::ALL_SMS {
            let f = family_of(*sm).expect("a family");
            let Some((lo, _)) = reuse_field(f) else {
                continue;
            };
            let neutral = f.neutral_control();
            assert_eq!(with_reuse_needs(f, neutral), neutral, "SM{sm}");
            let fixed = with_reuse_needs(f, neutral | 1 << lo);
            assert_ne!(fixed & 1 << lo, 0, "SM{sm}: the flag stays");
            for &(flo, width, min, max) in f.reuse_needs() {
                let v = fixed >> flo & ((1 << width) - 1);
                assert!((min..=max).contains(&v), "SM{sm}: field at {flo} is {v}");
            }
            assert_eq!(with_reuse_needs(f, fixed), fixed, "SM{sm}");
        }
    }
}
