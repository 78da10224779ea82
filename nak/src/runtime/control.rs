//! Control values (the scheduling bits of each instruction) that the
//! reference disassembler accepts.

use crate::isa::Family;

/// The family's operand-reuse flags in the control value: (low bit,
/// width), or None when it has none (Maxwell keeps them elsewhere).
pub fn reuse_field(family: Family) -> Option<(u32, u32)> {
    field(family, "reuse")
}

/// The reuse flags' bits of the family's control value (0 without).
pub fn reuse_mask(family: Family) -> u32 {
    reuse_field(family).map_or(0, |(lo, width)| ((1u32 << width) - 1) << lo)
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

/// A field of the family's control value: (low bit, width), by its name
/// in the spec (`stall`, `yield`, `write_barrier`, `read_barrier`, `wait`,
/// `reuse`).
fn field(family: Family, name: &str) -> Option<(u32, u32)> {
    let &(_, lo, width) = family.control_fields().iter().find(|f| f.0 == name)?;
    Some((lo, width))
}

/// A control value's scheduling fields, as numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Fields {
    /// Cycles before the warp's next instruction may issue.
    pub stall: u32,
    /// The raw yield bit.
    pub yield_bit: bool,
    /// The scoreboard counting this instruction's results until they are
    /// written, and the one counting its sources until they are read
    /// (None: no scoreboard, the field's 7).
    pub write_barrier: Option<u8>,
    pub read_barrier: Option<u8>,
    /// Scoreboards that must be zero before this instruction issues.
    pub wait: u8,
}

/// The fields of `ctrl` on `family` (zero where the family has none).
pub fn fields(family: Family, ctrl: u32) -> Fields {
    Layout::of(family).fields(ctrl)
}

/// Where a family keeps each scheduling field, looked up once for a
/// stream of words (the names are searched in the family's table).
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    stall: Option<(u32, u32)>,
    yield_bit: Option<(u32, u32)>,
    write_barrier: Option<(u32, u32)>,
    read_barrier: Option<(u32, u32)>,
    wait: Option<(u32, u32)>,
}

impl Layout {
    pub fn of(family: Family) -> Layout {
        Layout {
            stall: field(family, "stall"),
            yield_bit: field(family, "yield"),
            write_barrier: field(family, "write_barrier"),
            read_barrier: field(family, "read_barrier"),
            wait: field(family, "wait"),
        }
    }

    /// The fields of `ctrl` (zero where the family has none).
    pub fn fields(&self, ctrl: u32) -> Fields {
        let barrier = |f| match get(ctrl, f) {
            Some(b) if b < 7 => Some(b as u8),
            _ => None,
        };
        Fields {
            stall: get(ctrl, self.stall).unwrap_or(0),
            yield_bit: get(ctrl, self.yield_bit) == Some(1),
            write_barrier: barrier(self.write_barrier),
            read_barrier: barrier(self.read_barrier),
            wait: get(ctrl, self.wait).unwrap_or(0) as u8,
        }
    }
}

/// The control value with `f`'s fields on `family` (the neutral value's
/// bits elsewhere): what a scheduler writes. Fields the family lacks, and
/// values too wide for theirs, are left out.
pub fn from_fields(family: Family, f: &Fields) -> u32 {
    let mut ctrl = family.neutral_control();
    let barrier = |b: Option<u8>| b.map_or(7, u32::from);
    for (name, v) in [
        ("stall", f.stall),
        ("yield", u32::from(f.yield_bit)),
        ("write_barrier", barrier(f.write_barrier)),
        ("read_barrier", barrier(f.read_barrier)),
        ("wait", u32::from(f.wait)),
    ] {
        let _ = put(family, &mut ctrl, name, v);
    }
    ctrl
}

/// The control value of an instruction: its slot of the bundle's
/// scheduling word (`bundled`, on families that have one) or the bits of
/// its own word.
pub fn of_instruction(family: Family, word: u128, bundled: Option<u32>) -> u32 {
    match (bundled, family.control_in_word()) {
        (Some(c), _) => c,
        (None, Some((lo, width))) => (word >> lo) as u32 & ((1u32 << width) - 1),
        (None, None) => 0,
    }
}

/// The control bits inside an instruction word (SM70+); none on families
/// that keep them in a scheduling word. Text does not carry them.
pub fn word_mask(family: Family) -> u128 {
    family
        .control_in_word()
        .map_or(0, |(lo, w)| ((1u128 << w) - 1) << lo)
}

fn get(ctrl: u32, f: Option<(u32, u32)>) -> Option<u32> {
    f.map(|(lo, width)| ctrl >> lo & ((1u32 << width) - 1))
}

/// The bits of the control value no named field holds.
fn other_bits(family: Family) -> u32 {
    let all = match family.control_in_word() {
        Some((_, width)) => (1u32 << width) - 1,
        None => family
            .control_slot_bits()
            .map_or(0, |bits| (1u32 << bits) - 1),
    };
    family
        .control_fields()
        .iter()
        .fold(all, |m, &(_, lo, width)| m & !(((1u32 << width) - 1) << lo))
}

/// The control value as text, in CuAssembler's layout:
/// `[B0-2---:R1:W3:Y:S04]`.
/// - `B`: the wait mask, one character per barrier (its digit when waited
///   on, `-` when not).
/// - `R` and `W`: the read and write barrier set, `-` for none (7).
/// - `Y` when the raw yield bit is clear, `-` when it is set. This is
///   CuAssembler's and maxas's polarity, and ptxas clears the bit on every
///   stall of 12 or more.
/// - `S`: the stall count in decimal.
///
/// Two groups follow only when their bits are not zero:
/// - `:U` and the reuse flags, one character per operand slot, a to d
///   (`-` or `R`). nvdisasm prints Volta's flags as `.reuse` too, and
///   Maxwell's not at all.
/// - `:X` and any bits no field names, in hex.
pub fn ctrl_text(family: Family, ctrl: u32) -> String {
    use std::fmt::Write as _;
    let wait = get(ctrl, field(family, "wait")).unwrap_or(0);
    let barrier = |name| match get(ctrl, field(family, name)) {
        Some(7) | None => '-',
        Some(b) => char::from_digit(b, 10).unwrap_or('?'),
    };
    let mut out = String::from("[B");
    let waits = field(family, "wait").map_or(0, |f| f.1);
    for i in 0..waits {
        out.push(if wait >> i & 1 == 1 {
            char::from_digit(i, 10).unwrap_or('?')
        } else {
            '-'
        });
    }
    let yield_clear = get(ctrl, field(family, "yield")) == Some(0);
    let stall = get(ctrl, field(family, "stall")).unwrap_or(0);
    let _ = write!(
        out,
        ":R{}:W{}:{}:S{stall:02}",
        barrier("read_barrier"),
        barrier("write_barrier"),
        if yield_clear { 'Y' } else { '-' },
    );
    if let Some((lo, width)) = field(family, "reuse") {
        let reuse = ctrl >> lo & ((1u32 << width) - 1);
        if reuse != 0 {
            out.push_str(":U");
            for i in 0..width {
                out.push(if reuse >> i & 1 == 1 { 'R' } else { '-' });
            }
        }
    }
    let other = ctrl & other_bits(family);
    if other != 0 {
        let _ = write!(out, ":X{other:x}");
    }
    out.push(']');
    out
}

/// `ctrl` with field `name` holding `v`.
fn put(family: Family, ctrl: &mut u32, name: &str, v: u32) -> Result<(), String> {
    let (lo, width) =
        field(family, name).ok_or_else(|| format!("this family has no {name} field"))?;
    if v >> width != 0 {
        return Err(format!("{name} {v} does not fit {width} bits"));
    }
    *ctrl = *ctrl & !(((1u32 << width) - 1) << lo) | v << lo;
    Ok(())
}

/// The control value a [`ctrl_text`] field gives (`text` starts at its
/// `[`): the value and the length of the field, or what is wrong with it.
/// A group the field leaves out is zero, except the barriers (none).
pub fn parse_ctrl_text(family: Family, text: &str) -> Result<(u32, usize), String> {
    let end = text
        .find(']')
        .ok_or_else(|| "a control field `[...]` has no closing `]`".to_string())?;
    let body = text
        .get(1..end)
        .ok_or_else(|| "a control field starts with `[`".to_string())?;
    let mut ctrl = 0u32;
    let set = |ctrl: &mut u32, name: &str, v: u32| put(family, ctrl, name, v);
    set(&mut ctrl, "read_barrier", 7)?;
    set(&mut ctrl, "write_barrier", 7)?;
    set(&mut ctrl, "yield", 1)?;
    for group in body.split(':') {
        let (key, rest) = group.split_at(group.len().min(1));
        match key {
            "B" => {
                let mut mask = 0;
                for (i, ch) in rest.chars().enumerate() {
                    match ch {
                        '-' => {}
                        d if d.to_digit(10) == Some(i as u32) => mask |= 1 << i,
                        _ => return Err(format!("wait mask `{rest}`: `{ch}` at place {i}")),
                    }
                }
                set(&mut ctrl, "wait", mask)?;
            }
            "R" | "W" => {
                let v = match rest {
                    "-" => 7,
                    d => d
                        .parse::<u32>()
                        .map_err(|_| format!("barrier `{group}`: a digit or `-`"))?,
                };
                let name = if key == "R" {
                    "read_barrier"
                } else {
                    "write_barrier"
                };
                set(&mut ctrl, name, v)?;
            }
            // `Y`: the raw yield bit clear (see `ctrl_text`).
            "Y" | "-" if rest.is_empty() => set(&mut ctrl, "yield", u32::from(key == "-"))?,
            "S" => {
                let v = rest
                    .parse::<u32>()
                    .map_err(|_| format!("stall `{group}`: a decimal count"))?;
                set(&mut ctrl, "stall", v)?;
            }
            "U" => {
                let mut mask = 0;
                for (i, ch) in rest.chars().enumerate() {
                    match ch {
                        '-' => {}
                        'R' => mask |= 1 << i,
                        _ => return Err(format!("reuse flags `{rest}`: `R` or `-`")),
                    }
                }
                set(&mut ctrl, "reuse", mask)?;
            }
            "X" => {
                let v = u32::from_str_radix(rest, 16)
                    .map_err(|_| format!("other bits `{group}`: hex"))?;
                if v & !other_bits(family) != 0 {
                    return Err(format!("other bits {v:#x} overlap a named field"));
                }
                ctrl |= v;
            }
            _ => return Err(format!("unknown control group `{group}`")),
        }
    }
    Ok((ctrl, end + 1))
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

    /// Every control value a family can hold prints as a field that reads
    /// back as the same value; the layout is CuAssembler's.
    #[test]
    fn control_text_round_trips() {
        for family in [family_of(50), family_of(90)].map(|f| f.expect("a family")) {
            let bits = family
                .control_in_word()
                .map(|(_, w)| w)
                .or(family.control_slot_bits())
                .expect("control bits");
            for i in 0..20_000u32 {
                // Low values whole, high bits from a spread of samples.
                let ctrl = i | (i.wrapping_mul(0x9e37_79b9) & ((1 << bits) - 1));
                let text = ctrl_text(family, ctrl);
                assert_eq!(
                    parse_ctrl_text(family, &text),
                    Ok((ctrl, text.len())),
                    "{text}"
                );
            }
            assert_eq!(
                ctrl_text(family, family.neutral_control()),
                "[B------:R-:W-:Y:S00]"
            );
        }
        let sm90 = family_of(90).expect("a family");
        // Stall 4, yield set, write barrier 2, waits on 0 and 3.
        let ctrl = 4 | 1 << 4 | 7 << 8 | 2 << 5 | 0b1001 << 11;
        assert_eq!(ctrl_text(sm90, ctrl), "[B0--3--:R-:W2:-:S04]");
        for bad in ["[B0:S04", "[B1-----:S04]", "[Q1]", "[S99]", "[R9]", "[X1]"] {
            assert!(parse_ctrl_text(sm90, bad).is_err(), "{bad}");
        }
    }
}
