//! The build compiles the unformatted copy (`generate_compact`, OUT_DIR);
//! people read the formatted mirror (`generate`, generated/). Both must be
//! the same code: formatting the compact copy gives the mirror exactly.

#[test]
fn compact_and_formatted_layouts_are_the_same_code() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../isa-spec/spec");
    let spec = isa_spec::load(&dir, "isa-spec/spec")
        .spec
        .expect("the real spec loads");
    let formatted = isa_codegen::generate(&spec).expect("generates");
    let compact = isa_codegen::generate_compact(&spec).expect("generates");
    assert_eq!(formatted.len(), compact.len());
    for (f, c) in formatted.iter().zip(&compact) {
        assert_eq!(f.name, c.name);
        let file = syn::parse_file(&c.contents).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        let again = prettyplease::unparse(&file);
        assert!(
            f.contents.ends_with(&again),
            "{}: formatting the compact copy does not give the mirror",
            f.name
        );
    }
    // The build copy skips formatting; it is no larger for that.
    let size = |files: &[isa_codegen::File]| files.iter().map(|f| f.contents.len()).sum::<usize>();
    assert!(size(&compact) < size(&formatted));
}
