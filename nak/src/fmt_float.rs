//! Placeholder until the real nvdisasm-exact float printer lands.
pub fn fmt_f32(bits: u32, out: &mut String) {
    out.push_str(&format!("{}", f32::from_bits(bits)));
}
pub fn fmt_f64(bits: u64, out: &mut String) {
    out.push_str(&format!("{}", f64::from_bits(bits)));
}
pub fn parse_f32(t: &str) -> Option<u32> {
    t.trim().parse::<f32>().ok().map(f32::to_bits)
}
pub fn parse_f64(t: &str) -> Option<u64> {
    t.trim().parse::<f64>().ok().map(f64::to_bits)
}
