//! Floating-point immediates as nvdisasm prints them in SASS text, and back.
//!
//! The rules, established against nvdisasm 13.5 (SM75+) and 11.8 (SM50..SM70)
//! with `scripts/gen_float_vectors.py` (the vectors are in
//! `tests/data/float_vectors.txt`), are the same for f32 and f64 immediates
//! (an f32 is widened to the f64 of the same value, which is exact):
//!
//! * NaN (all-ones exponent, non-zero fraction): `+QNAN ` / `-QNAN ` when the
//!   top fraction bit (the quiet bit) is set, `+SNAN ` / `-SNAN ` otherwise.
//!   The payload is not shown.  Note the trailing blank: nvdisasm prints it
//!   (`FFMA R7, R3, +QNAN , R6`).
//! * Infinities: `+INF ` / `-INF ` (trailing blank too).
//! * `+0.0` prints `0`, `-0.0` prints `-0.0 ` (trailing blank too).
//! * finite non-zero `x` with `|x| >= 1e9`: C's `printf("%.20e", x)`, i.e.
//!   21 significant digits, trailing zeros kept, an exponent of at least two
//!   digits: `1.00000000000000000000e+09`, `1.84467440737095516160e+19`,
//!   `8.98846567431157953865e+307`.
//! * finite non-zero `x` with `|x| < 1e9`: C's `printf("%.20g", x)`, i.e.
//!   20 significant digits with trailing zeros (and a bare `.`) removed,
//!   plain notation when the decimal exponent is in `-4..=8`, otherwise
//!   `d.ddde-XX`: `1`, `100`, `0.5`, `999999936`, `0.10000000149011611938`,
//!   `0.0001220703125`, `9.9999997473787516356e-05`,
//!   `1.175494350822287508e-38`, `4.9406564584124654418e-324`.
//!
//! nvdisasm 11.x (used for SM50..SM70) prints the same except for f32
//! signalling NaNs, which it shows as `±QNAN ` (see [`fmt_f32_nvdisasm11`]).
//!
//! Digits are the exact decimal value of the binary number, correctly
//! rounded to nearest with ties to even (glibc's printf; ties do occur, e.g.
//! 1.50000095367431640625 prints `1.5000009536743164062`).  This is not a
//! shortest-round-trip format.
//!
//! Parsing accepts what the printer produces (so `parse(fmt(b)) == b` for
//! every non-NaN `b`), with an optional sign and surrounding white space, and
//! any other decimal literal Rust's `str::parse` accepts (correctly rounded).
//! The NaN texts lose the payload, so they parse to one canonical pattern
//! each, every payload bit set, as ptxas writes them (`FADD R10, R3,
//! -QNAN` is `0xffffffff` in ptxas output on every SM, `FMUL32I.SAT ...
//! +QNAN` `0x7fffffff` on SM52): f32 `±QNAN` -> `0x7fffffff` /
//! `0xffffffff`, `±SNAN` -> `0x7fbfffff` / `0xffbfffff`; f64 (whose
//! immediates encode only the high 32 bits) `±QNAN` ->
//! `0x7fffffff_00000000`, `±SNAN` -> `0x7ff7ffff_00000000` (sign bit set
//! for `-`). Maxwell's 20-bit float immediates keep the top 20 bits of
//! such a NaN (the encoder drops the low payload bits of a NaN, see
//! `encode::imm_field`).  `INF`, `QNAN` and `SNAN` without a sign mean `+`.
//! A finite literal that rounds to infinity is rejected (`None`): nvdisasm
//! would print `+INF ` for that value.

/// Text nvdisasm prints for an f32 immediate with these bits (e.g. "1", "-1", "0.5", "1.175494350822287508e-38", "+INF ", "-INF ", "+QNAN ", ...).
pub fn fmt_f32(bits: u32, out: &mut crate::runtime::line_buf::LineBuf) {
    let neg = bits >> 31 != 0;
    let exp = (bits >> 23) & 0xff;
    let frac = bits & 0x7f_ffff;
    if exp == 0xff {
        fmt_special(neg, frac != 0, frac & 0x40_0000 != 0, out);
    } else {
        fmt_finite(f64::from(f32::from_bits(bits)), out);
    }
}

/// [`fmt_f32`] as nvdisasm 11.x prints it (the version the corpus uses for
/// SM50..SM70): the same except that it shows every f32 NaN as `±QNAN `,
/// signalling ones included (it apparently classifies the value after
/// widening it to f64, which quiets it).  Its f64 texts match [`fmt_f64`].
pub fn fmt_f32_nvdisasm11(bits: u32, out: &mut crate::runtime::line_buf::LineBuf) {
    let quiet_bit = if f32::from_bits(bits).is_nan() {
        0x40_0000
    } else {
        0
    };
    fmt_f32(bits | quiet_bit, out);
}

/// Same for an f64 immediate (64-bit pattern; on some ops only the high 32 bits are encoded, low bits zero).
pub fn fmt_f64(bits: u64, out: &mut crate::runtime::line_buf::LineBuf) {
    let neg = bits >> 63 != 0;
    let exp = (bits >> 52) & 0x7ff;
    let frac = bits & ((1 << 52) - 1);
    if exp == 0x7ff {
        fmt_special(neg, frac != 0, frac & (1 << 51) != 0, out);
    } else {
        fmt_finite(f64::from_bits(bits), out);
    }
}

/// The f32 bits of the same value as F16 `h` (exact: every F16 is an
/// F32; a NaN keeps its quiet bit and the top of its payload).
pub fn f16_to_f32_bits(h: u16) -> u32 {
    let sign = ((h as u32) >> 15) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let frac = (h & 0x3ff) as u32;
    match (exp, frac) {
        (0, 0) => sign,
        (0, f) => {
            // Denormal: the value f * 2^-24 as a normal f32.
            let v = f as f32 * f32::from_bits(0x3380_0000);
            sign | v.to_bits()
        }
        (0x1f, f) => sign | 0x7f80_0000 | (f << 13),
        (e, f) => sign | ((e + 127 - 15) << 23) | (f << 13),
    }
}

/// The F16 with exactly the value of f32 bits `b`, if there is one (NaNs
/// keep their sign, quiet bit and the top of their payload).
pub fn f32_bits_to_f16(b: u32) -> Option<u16> {
    let sign = ((b >> 31) << 15) as u16;
    let x = f32::from_bits(b & 0x7fff_ffff);
    if x.is_nan() {
        let quiet = 0x200 * u16::from(b & 0x40_0000 != 0);
        return Some(sign | 0x7c00 | ((b >> 13) & 0x3ff) as u16 | quiet);
    }
    if x.is_infinite() {
        return Some(sign | 0x7c00);
    }
    // Denormals and zero: x * 2^24 is the fraction, an integer below 1024.
    let scaled = x * f32::from_bits(0x4b80_0000);
    if scaled < 1024.0 {
        return (scaled.fract() == 0.0).then_some(sign | scaled as u16);
    }
    let exp = ((b >> 23) & 0xff) as i32 - 127;
    let frac = b & 0x7f_ffff;
    ((-14..=15).contains(&exp) && frac & 0x1fff == 0)
        .then(|| sign | (((exp + 15) as u16) << 10) | (frac >> 13) as u16)
}

/// Inverse: parse the text nvdisasm prints back to bits (accepts what fmt_* produce, plus a leading '-' / '+'; whitespace-trimmed). None if not a float literal.
pub fn parse_f32(text: &str) -> Option<u32> {
    let text = text.trim();
    if let Some((neg, special)) = parse_special(text) {
        let bits = match special {
            Special::Inf => 0x7f80_0000,
            Special::QNan => 0x7fff_ffff,
            Special::SNan => 0x7fbf_ffff,
        };
        return Some(bits | (u32::from(neg) << 31));
    }
    if !is_decimal_literal(text) {
        return None;
    }
    let v: f32 = text.parse().ok()?;
    v.is_finite().then_some(v.to_bits())
}

/// Inverse of [`fmt_f64`]; see [`parse_f32`].
pub fn parse_f64(text: &str) -> Option<u64> {
    let text = text.trim();
    if let Some((neg, special)) = parse_special(text) {
        let bits = match special {
            Special::Inf => 0x7ff0_0000_0000_0000,
            Special::QNan => 0x7fff_ffff_0000_0000,
            Special::SNan => 0x7ff7_ffff_0000_0000,
        };
        return Some(bits | (u64::from(neg) << 63));
    }
    if !is_decimal_literal(text) {
        return None;
    }
    let v: f64 = text.parse().ok()?;
    v.is_finite().then_some(v.to_bits())
}

// ---------------------------------------------------------------------------
// Specials

fn fmt_special(neg: bool, nan: bool, quiet: bool, out: &mut crate::runtime::line_buf::LineBuf) {
    out.push(if neg { '-' } else { '+' });
    out.push_str(match (nan, quiet) {
        (false, _) => "INF ",
        (true, true) => "QNAN ",
        (true, false) => "SNAN ",
    });
}

enum Special {
    Inf,
    QNan,
    SNan,
}

fn parse_special(text: &str) -> Option<(bool, Special)> {
    let (neg, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let special = match rest {
        "INF" => Special::Inf,
        "QNAN" => Special::QNan,
        "SNAN" => Special::SNan,
        _ => return None,
    };
    Some((neg, special))
}

/// Only digits, '.', exponent marks and signs: keeps `str::parse` from
/// accepting "inf", "NaN", "infinity" and the like.
fn is_decimal_literal(text: &str) -> bool {
    text.bytes().any(|b| b.is_ascii_digit())
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
}

// ---------------------------------------------------------------------------
// Finite values: exact decimal expansion, rounded like glibc's printf.

/// Big enough for `m * 5^1074` with `m < 2^53` (about 2548 bits) and for
/// `m << 971` (1024 bits).
const BIG_WORDS: usize = 82;
/// Decimal digits of the largest such integer (767) plus slack.
const MAX_DIGITS: usize = 800;

/// A little-endian arbitrary-precision natural number on the stack.
struct Big {
    w: [u32; BIG_WORDS],
    len: usize,
}

impl Big {
    fn from_u64(v: u64) -> Self {
        let mut b = Big {
            w: [0; BIG_WORDS],
            len: 0,
        };
        b.w[0] = v as u32;
        b.w[1] = (v >> 32) as u32;
        b.len = if b.w[1] != 0 {
            2
        } else {
            usize::from(b.w[0] != 0)
        };
        b
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for w in &mut self.w[..self.len] {
            let p = u64::from(*w) * u64::from(m) + carry;
            *w = p as u32;
            carry = p >> 32;
        }
        if carry != 0 && self.len < BIG_WORDS {
            self.w[self.len] = carry as u32;
            self.len += 1;
        }
    }

    fn mul_pow5(&mut self, mut n: u32) {
        // 5^13 is the largest power of five that fits in a u32.
        while n >= 13 {
            self.mul_small(1_220_703_125);
            n -= 13;
        }
        if n > 0 {
            self.mul_small(5u32.pow(n));
        }
    }

    fn shl(&mut self, n: u32) {
        let words = (n / 32) as usize;
        let bits = n % 32;
        if self.len == 0 || self.len + words + 1 > BIG_WORDS {
            return;
        }
        if bits != 0 {
            let mut carry = 0u32;
            for w in &mut self.w[..self.len] {
                let nw = (*w << bits) | carry;
                carry = *w >> (32 - bits);
                *w = nw;
            }
            if carry != 0 {
                self.w[self.len] = carry;
                self.len += 1;
            }
        }
        if words != 0 {
            self.w.copy_within(0..self.len, words);
            self.w[..words].fill(0);
            self.len += words;
        }
    }

    /// Divides in place, returns the remainder.
    fn divrem_small(&mut self, d: u32) -> u32 {
        let mut rem = 0u64;
        for w in self.w[..self.len].iter_mut().rev() {
            let cur = (rem << 32) | u64::from(*w);
            *w = (cur / u64::from(d)) as u32;
            rem = cur % u64::from(d);
        }
        while self.len > 0 && self.w[self.len - 1] == 0 {
            self.len -= 1;
        }
        rem as u32
    }
}

/// The decimal digits (0..=9, most significant first, no leading zero) of a
/// finite non-zero value, and the exponent `e` with value = d.ddd * 10^e.
/// `N` digits of room: [`MAX_DIGITS`] for the exact digits of any value,
/// [`SMALL_DIGITS`] for the leading digits [`Decimal::small`] makes.
struct Decimal<const N: usize> {
    d: [u8; N],
    n: usize,
    exp: i32,
}

/// Room for the digits of a u128 written in three chunks of 19 (57).
const SMALL_DIGITS: usize = 64;
/// Significant digits [`Decimal::small`] keeps exact (`%.20e` needs 21).
const SMALL_SIG: usize = 21;

/// `x`'s mantissa without trailing zero bits, and its power of two.
fn mant_exp(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    let (mant, e2) = if biased == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), biased - 1075)
    };
    let tz = mant.trailing_zeros().min(63);
    (mant >> tz, e2 + tz as i32)
}

/// `mant << e2` when it fits a u128.
fn small_int(mant: u64, e2: i32) -> Option<u128> {
    let bits = 64 - mant.leading_zeros() as i32 + e2;
    (e2 >= 0 && bits <= 128).then(|| u128::from(mant) << e2)
}

impl Decimal<SMALL_DIGITS> {
    /// The leading digits of `mant * 2^e2` without a bignum, for most
    /// values (every f32, an integer that fits a u128, `e2 >= -120`): enough for
    /// [`Self::round_to`] up to [`SMALL_SIG`] digits. Past those, a final 1
    /// stands for every nonzero digit left (the rounding only asks whether
    /// any is).
    fn small(mant: u64, e2: i32) -> Option<Self> {
        let mut dec = Decimal {
            d: [0; SMALL_DIGITS],
            n: 0,
            exp: 0,
        };
        if e2 >= 0 {
            let mut v = small_int(mant, e2)?;
            let mut pos = SMALL_DIGITS;
            while v > 0 {
                const CHUNK: u128 = 10_000_000_000_000_000_000;
                pos = dec.put_chunk(pos, (v % CHUNK) as u64, 19);
                v /= CHUNK;
            }
            return Some(dec.finish(pos, 0));
        }
        // Below 2^-120 (tiny f32 values: bit patterns of small integers),
        // print x * 10^j = mant * 5^j * 2^-120 instead, j = -120 - e2,
        // while mant * 5^j fits a u128.
        let (v, j) = if e2 >= -120 {
            (u128::from(mant), 0)
        } else {
            let j = e2.unsigned_abs() - 120;
            (u128::from(mant).checked_mul(5u128.checked_pow(j)?)?, j)
        };
        let s = e2.unsigned_abs() - j;
        // x * 10^j = ip + f / 2^s: the integer part's digits, then the
        // fraction's, one per multiplication by ten (f * 10 < 2^124 fits).
        let mask = (1u128 << s) - 1;
        let ip = u64::try_from(v >> s).ok()?;
        let mut f = v & mask;
        let mut n = 0;
        if ip > 0 {
            let mut tmp = [0u8; 20];
            let mut t = tmp.len();
            let mut v = ip;
            while v > 0 {
                t -= 1;
                tmp[t] = (v % 10) as u8;
                v /= 10;
            }
            n = tmp.len() - t;
            dec.d[..n].copy_from_slice(&tmp[t..]);
            dec.exp = n as i32 - 1;
        } else {
            // Non-zero, so some fraction digit is not 0.
            dec.exp = -1;
            while f != 0 {
                f *= 10;
                let digit = (f >> s) as u8;
                f &= mask;
                if digit != 0 {
                    dec.d[0] = digit;
                    n = 1;
                    break;
                }
                dec.exp -= 1;
            }
        }
        while n < SMALL_SIG + 2 && f != 0 {
            f *= 10;
            dec.d[n] = (f >> s) as u8;
            f &= mask;
            n += 1;
        }
        if f != 0 {
            dec.d[n] = 1;
            n += 1;
        }
        dec.n = n;
        dec.exp -= j as i32;
        Some(dec)
    }
}

impl Decimal<MAX_DIGITS> {
    /// The digits of `mant * 2^e2` through a bignum: for any finite value.
    fn of_big(mant: u64, e2: i32) -> Self {
        let mut dec = Decimal {
            d: [0; MAX_DIGITS],
            n: 0,
            exp: 0,
        };
        // value = mant * 2^e2 = big * 10^-k
        let mut big = Big::from_u64(mant);
        let k = if e2 >= 0 {
            big.shl(e2 as u32);
            0
        } else {
            big.mul_pow5(e2.unsigned_abs());
            e2.unsigned_abs() as i32
        };
        // Digits come out least significant first, in chunks of nine; fill
        // the buffer from its end and move them to the front afterwards.
        let mut pos = MAX_DIGITS;
        while big.len > 0 && pos >= 9 {
            pos = dec.put_chunk(pos, u64::from(big.divrem_small(1_000_000_000)), 9);
        }
        dec.finish(pos, k)
    }
}

impl<const N: usize> Decimal<N> {
    /// Write the `count` low decimal digits of `chunk` just before `pos`
    /// (digits come out least significant first, so the buffer fills from
    /// its end); returns the new start.
    fn put_chunk(&mut self, mut pos: usize, mut chunk: u64, count: usize) -> usize {
        for _ in 0..count {
            pos -= 1;
            self.d[pos] = (chunk % 10) as u8;
            chunk /= 10;
        }
        pos
    }

    /// The digits were written at `pos..` (least significant last, maybe
    /// with leading zeros) for a value of digits * 10^-k: move them to the
    /// front and set the length and exponent.
    fn finish(mut self, mut pos: usize, k: i32) -> Self {
        while pos < N && self.d[pos] == 0 {
            pos += 1;
        }
        self.n = N - pos;
        self.d.copy_within(pos.., 0);
        self.exp = self.n as i32 - 1 - k;
        self
    }

    /// Rounds to `p` significant digits (ties to even) and pads with zeros
    /// up to `p`; `p` must be at least 1 and below `N`.
    fn round_to(&mut self, p: usize) {
        if self.n > p {
            let first = self.d[p];
            let up = first > 5
                || (first == 5
                    && (self.d[p + 1..self.n].iter().any(|&d| d != 0) || self.d[p - 1] % 2 == 1));
            self.n = p;
            if up {
                let mut i = p;
                loop {
                    if i == 0 {
                        // All nines: 99.9 -> 100.0
                        self.d[0] = 1;
                        self.d[1..p].fill(0);
                        self.exp += 1;
                        break;
                    }
                    i -= 1;
                    if self.d[i] == 9 {
                        self.d[i] = 0;
                    } else {
                        self.d[i] += 1;
                        break;
                    }
                }
            }
        }
        self.d[self.n..p].fill(0);
        self.n = p;
    }
}

fn push_digit(out: &mut crate::runtime::line_buf::LineBuf, d: u8) {
    out.push_byte(b'0' + d);
}

/// `e+09`, `e-324`: C's exponent, at least two digits.
fn push_exp(out: &mut crate::runtime::line_buf::LineBuf, exp: i32) {
    out.push('e');
    out.push(if exp < 0 { '-' } else { '+' });
    let e = exp.unsigned_abs();
    if e >= 100 {
        push_digit(out, (e / 100) as u8);
    }
    push_digit(out, (e / 10 % 10) as u8);
    push_digit(out, (e % 10) as u8);
}

fn fmt_finite(x: f64, out: &mut crate::runtime::line_buf::LineBuf) {
    if x == 0.0 {
        out.push_str(if x.is_sign_negative() { "-0.0 " } else { "0" });
        return;
    }
    if x < 0.0 {
        out.push('-');
    }
    let x = x.abs();
    // Integers below 1e9 (the common case) print as themselves under %.20g.
    if x < 1e9 && x.fract() == 0.0 {
        let mut v = x as u32;
        let mut buf = [0u8; 10];
        let mut i = buf.len();
        while v > 0 {
            i -= 1;
            buf[i] = (v % 10) as u8;
            v /= 10;
        }
        for &d in &buf[i..] {
            push_digit(out, d);
        }
        return;
    }
    let (mant, e2) = mant_exp(x);
    match Decimal::small(mant, e2) {
        Some(dec) => fmt_digits(dec, x >= 1e9, out),
        None => fmt_digits(Decimal::of_big(mant, e2), x >= 1e9, out),
    }
}

/// `%.20e` (`big`) or `%.20g` of a finite non-zero magnitude's digits.
fn fmt_digits<const N: usize>(
    mut dec: Decimal<N>,
    big: bool,
    out: &mut crate::runtime::line_buf::LineBuf,
) {
    if big {
        // %.20e
        dec.round_to(21);
        push_digit(out, dec.d[0]);
        out.push('.');
        for &d in &dec.d[1..21] {
            push_digit(out, d);
        }
        push_exp(out, dec.exp);
        return;
    }
    // %.20g
    const P: usize = 20;
    dec.round_to(P);
    let mut n = P;
    while n > 1 && dec.d[n - 1] == 0 {
        n -= 1;
    }
    let digits = &dec.d[..n];
    let exp = dec.exp;
    if exp < -4 || exp >= P as i32 {
        push_digit(out, digits[0]);
        if n > 1 {
            out.push('.');
            for &d in &digits[1..] {
                push_digit(out, d);
            }
        }
        push_exp(out, exp);
    } else if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        for &d in digits {
            push_digit(out, d);
        }
    } else {
        let int_len = exp as usize + 1;
        for i in 0..int_len {
            push_digit(out, digits.get(i).copied().unwrap_or(0));
        }
        if n > int_len {
            out.push('.');
            for &d in &digits[int_len..] {
                push_digit(out, d);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VECTORS: &str = include_str!("../../tests/data/float_vectors.txt");

    use crate::runtime::line_buf::{LineRoom, line_text};

    fn f32s(bits: u32) -> String {
        line_text(|s| fmt_f32(bits, s))
    }

    fn f64s(bits: u64) -> String {
        line_text(|s| fmt_f64(bits, s))
    }

    /// (kind, bits, text) from the nvdisasm vectors; text keeps its blanks.
    fn vectors() -> impl Iterator<Item = (&'static str, u64, &'static str)> {
        VECTORS
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| {
                let mut it = l.splitn(3, '\t');
                let kind = it.next().unwrap();
                let bits = u64::from_str_radix(it.next().unwrap(), 16).unwrap();
                let text = it.next().unwrap();
                (kind, bits, text)
            })
    }

    #[test]
    fn small_digits_round_like_the_bignum() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut vals: Vec<f64> = vec![1.0, 0.5, 0.1, 1e-4, 3.0e38, 1.5e-45, 1e20, 0.3, 2.5, 0.125];
        for _ in 0..20000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = f64::from(f32::from_bits(x as u32));
            if v.is_finite() && v != 0.0 {
                vals.push(v.abs());
            }
            let v = f64::from_bits(x >> 1);
            if v.is_finite() && v != 0.0 {
                vals.push(v);
            }
            // Ties and near-ties at 20 and 21 digits.
            vals.push((x >> 40) as f64 + 0.5);
            vals.push((x >> 11) as f64 / 1024.0);
        }
        let mut fast = 0;
        for v in vals {
            let (mant, e2) = mant_exp(v);
            let Some(small) = Decimal::small(mant, e2) else {
                continue;
            };
            fast += 1;
            for p in [1, 2, 17, 20, SMALL_SIG] {
                let (mut a, mut b) = (Decimal { ..small }, Decimal::of_big(mant, e2));
                a.round_to(p);
                b.round_to(p);
                assert_eq!(
                    (&a.d[..a.n], a.exp),
                    (&b.d[..b.n], b.exp),
                    "{v:e} to {p} digits"
                );
            }
        }
        assert!(fast > 20000, "the u128 path was taken {fast} times");
        // Every f32 (tiny ones included) takes it.
        for bits in [
            1u32,
            2,
            0x7f,
            0x7f_ffff,
            0x80_0000,
            0x0d00_0000,
            0x7f7f_ffff,
        ] {
            let (mant, e2) = mant_exp(f64::from(f32::from_bits(bits)));
            assert!(Decimal::small(mant, e2).is_some(), "{bits:#x}");
        }
    }

    #[test]
    fn nvdisasm_vectors() {
        let (mut n32, mut n64) = (0, 0);
        for (kind, bits, text) in vectors() {
            match kind {
                "f32" => {
                    let b = u32::try_from(bits).unwrap();
                    assert_eq!(f32s(b), text, "fmt_f32({b:#010x})");
                    let p = parse_f32(text).unwrap_or_else(|| panic!("parse_f32({text:?})"));
                    if f32::from_bits(b).is_nan() {
                        // The payload is not printed: only sign and quiet bit
                        // survive, and the canonical pattern prints the same.
                        assert!(f32::from_bits(p).is_nan());
                        assert_eq!(f32s(p), text);
                    } else {
                        assert_eq!(p, b, "parse_f32({text:?})");
                    }
                    n32 += 1;
                }
                "f64" => {
                    assert_eq!(f64s(bits), text, "fmt_f64({bits:#018x})");
                    let p = parse_f64(text).unwrap_or_else(|| panic!("parse_f64({text:?})"));
                    if f64::from_bits(bits).is_nan() {
                        assert!(f64::from_bits(p).is_nan());
                        assert_eq!(f64s(p), text);
                    } else {
                        assert_eq!(p, bits, "parse_f64({text:?})");
                    }
                    n64 += 1;
                }
                _ => panic!("bad vector kind {kind:?}"),
            }
        }
        assert!(n32 > 1000 && n64 > 1000, "{n32} f32 / {n64} f64 vectors");
    }

    #[test]
    fn examples() {
        assert_eq!(f32s(0x3f80_0000), "1");
        assert_eq!(f32s(0xbf80_0000), "-1");
        assert_eq!(f32s(0x3f00_0000), "0.5");
        assert_eq!(f32s(0x42c8_0000), "100");
        assert_eq!(f32s(0), "0");
        assert_eq!(f32s(0x8000_0000), "-0.0 ");
        assert_eq!(f32s(0x0080_0000), "1.175494350822287508e-38");
        assert_eq!(f32s(0x0000_0001), "1.4012984643248170709e-45");
        assert_eq!(f32s(0x7f7f_ffff), "3.40282346638528859812e+38");
        assert_eq!(f32s(0x4e6e_6b27), "999999936");
        assert_eq!(f32s(0x4e6e_6b28), "1.00000000000000000000e+09");
        assert_eq!(f32s(0x7f80_0000), "+INF ");
        assert_eq!(f32s(0xff80_0000), "-INF ");
        assert_eq!(f32s(0x7fc0_0000), "+QNAN ");
        assert_eq!(f32s(0xffff_ffff), "-QNAN ");
        assert_eq!(f32s(0x7f80_0001), "+SNAN ");
        assert_eq!(f32s(0xffbf_ffff), "-SNAN ");
        assert_eq!(f64s(0x3ff8_0000_0000_0000), "1.5");
        assert_eq!(f64s(0x8000_0000_0000_0000), "-0.0 ");
        assert_eq!(f64s(0xfff0_0000_0000_0000), "-INF ");
        assert_eq!(f64s(0x3ff8_0001_0000_0000), "1.5000009536743164062");
    }

    /// Values with non-zero low words: no SASS op encodes them, so nvdisasm
    /// cannot confirm these; they follow the same printf rules (the expected
    /// texts are glibc's `%.20g` / `%.20e`).
    #[test]
    fn full_f64() {
        assert_eq!(f64s(0.1f64.to_bits()), "0.10000000000000000555");
        assert_eq!(
            f64s(core::f64::consts::PI.to_bits()),
            "3.141592653589793116"
        );
        assert_eq!(f64s(1.0e-5f64.to_bits()), "1.0000000000000000818e-05");
        assert_eq!(f64s(999_999_999.5f64.to_bits()), "999999999.5");
        assert_eq!(f64s(1e21f64.to_bits()), "1.00000000000000000000e+21");
        assert_eq!(f64s(1e23f64.to_bits()), "9.99999999999999916114e+22");
        assert_eq!(f64s(f64::MAX.to_bits()), "1.79769313486231570815e+308");
        assert_eq!(f64s(1), "4.9406564584124654418e-324");
        assert_eq!(
            f64s(f64::MIN_POSITIVE.to_bits()),
            "2.2250738585072013831e-308"
        );
        assert_eq!(f64s(0x7ff0_0000_0000_0001), "+SNAN ");
        assert_eq!(f64s(0xfff8_0000_0000_0001), "-QNAN ");
        for x in [0.1f64, 1.0 / 3.0, 1e-300, 123_456_789.123, 9.87e300, 5e-324] {
            assert_eq!(parse_f64(&f64s(x.to_bits())), Some(x.to_bits()));
            assert_eq!(parse_f64(&f64s((-x).to_bits())), Some((-x).to_bits()));
        }
    }

    #[test]
    fn parse_forms() {
        assert_eq!(parse_f32(" 1 "), Some(0x3f80_0000));
        assert_eq!(parse_f32("+1"), Some(0x3f80_0000));
        assert_eq!(parse_f32("-0.0 "), Some(0x8000_0000));
        assert_eq!(parse_f32("-0"), Some(0x8000_0000));
        assert_eq!(parse_f32("1.5E3"), Some(1500f32.to_bits()));
        assert_eq!(parse_f32("INF"), Some(0x7f80_0000));
        assert_eq!(parse_f32("-INF "), Some(0xff80_0000));
        assert_eq!(parse_f32("+QNAN "), Some(0x7fff_ffff));
        assert_eq!(parse_f32("-QNAN"), Some(0xffff_ffff));
        assert_eq!(parse_f32("+SNAN"), Some(0x7fbf_ffff));
        assert_eq!(parse_f64("+QNAN"), Some(0x7fff_ffff_0000_0000));
        assert_eq!(parse_f64("-SNAN"), Some(0xfff7_ffff_0000_0000));
        assert_eq!(parse_f64("+INF"), Some(0x7ff0_0000_0000_0000));
        for bad in [
            "", " ", "-", "+", ".", "e5", "1e", "inf", "+inf", "nan", "NaN", "infinity", "+-1",
            "1.2.3", "1 2", "0x10", "R1", "--1", "+ INF", "QNAN+", "1e39", "1e400", "١", "\u{0}",
            "1_000",
        ] {
            assert_eq!(parse_f32(bad), None, "{bad:?}");
        }
        assert_eq!(parse_f64("1e400"), None);
        assert_eq!(parse_f64("-1e400"), None);
        assert_eq!(parse_f64("1e308"), Some(1e308f64.to_bits()));
    }

    #[test]
    fn nvdisasm11_snan() {
        let mut room = LineRoom::new();
        let mut s = room.line();
        fmt_f32_nvdisasm11(0x7f80_0001, &mut s);
        assert_eq!(s.as_str(), "+QNAN ");
        s.clear();
        fmt_f32_nvdisasm11(0xffbf_ffff, &mut s);
        assert_eq!(s.as_str(), "-QNAN ");
        for b in [
            0x7f80_0000,
            0x3f80_0000,
            0x8000_0000,
            0x0000_0001,
            0x7fff_ffff,
        ] {
            s.clear();
            fmt_f32_nvdisasm11(b, &mut s);
            assert_eq!(s.as_str(), f32s(b));
        }
    }

    /// Garbage never panics, and a decimal literal parses like `str::parse`.
    #[test]
    fn parse_garbage() {
        const ALPHABET: &[u8] = b"0123456789.eE+-INFQSAN x\t";
        let mut x = 12345u64;
        let mut buf = String::new();
        for _ in 0..50_000 {
            buf.clear();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 9) as usize;
            let mut y = x >> 8;
            for _ in 0..len {
                buf.push(char::from(ALPHABET[(y % ALPHABET.len() as u64) as usize]));
                y /= ALPHABET.len() as u64;
            }
            let (a, b) = (parse_f32(&buf), parse_f64(&buf));
            let t = buf.trim();
            if t.bytes()
                .all(|c| c.is_ascii_digit() || b".eE+-".contains(&c))
            {
                let std32 = t.parse::<f32>().ok().filter(|v| v.is_finite());
                let std64 = t.parse::<f64>().ok().filter(|v| v.is_finite());
                assert_eq!(a, std32.map(f32::to_bits), "{buf:?}");
                assert_eq!(b, std64.map(f64::to_bits), "{buf:?}");
            }
        }
    }

    /// fmt/parse round trip over a spread of bit patterns (no oracle needed).
    #[test]
    fn round_trip() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut room = LineRoom::new();
        let mut s = room.line();
        for _ in 0..20_000 {
            // splitmix64
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            s.clear();
            fmt_f64(z, &mut s);
            let p = parse_f64(s.as_str()).unwrap();
            if f64::from_bits(z).is_nan() {
                assert!(f64::from_bits(p).is_nan());
            } else {
                assert_eq!(p, z, "{s}");
            }
            let b = z as u32;
            s.clear();
            fmt_f32(b, &mut s);
            let p = parse_f32(s.as_str()).unwrap();
            if f32::from_bits(b).is_nan() {
                assert!(f32::from_bits(p).is_nan());
            } else {
                assert_eq!(p, b, "{s}");
            }
        }
    }
}
