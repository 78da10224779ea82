//! Issue 18's budget: the generated mirror stays at most 500 lines per op
//! on average, so shared algorithms stay in the runtime as ops are added.

#[test]
fn generated_code_is_at_most_500_lines_per_op() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../isa-spec/spec");
    let spec = isa_spec::load(&dir, "isa-spec/spec")
        .spec
        .expect("the real spec loads");
    let files = isa_codegen::generate(&spec).expect("generates");
    let lines: usize = files.iter().map(|f| f.contents.lines().count()).sum();
    let per_op = lines / spec.ops.len();
    assert!(
        per_op <= 500,
        "{lines} generated lines for {} ops: {per_op} per op, over 500",
        spec.ops.len()
    );
}
