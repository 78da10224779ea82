//! `ignored_on` (isa-spec/README.md): a bit nvdisasm ignores on some SMs
//! of a form only is raw there (a word with it flipped decodes as the
//! same form and re-encodes bit-exact) and fixed on the form's other SMs
//! (the flipped word is not that form there). Checked for every such bit
//! of every form, on sampled words of each SM.

use nak::isa;

#[test]
fn ignored_on_bits_are_raw_on_their_sms_only() {
    let root = isa_tests::oracle::workspace_dir();
    let loaded = isa_spec::load(&root.join("isa-spec/spec"), "isa-spec/spec");
    let spec = loaded.spec.expect("the spec loads");
    let (mut raw, mut fixed) = (0, 0);
    for op in &spec.ops {
        let forms = isa_tests::forms::with_ids(op);
        for (id, _, form) in forms.filter(|(_, _, f)| !f.strict.is_empty()) {
            for &sm in &form.sms {
                let strict = form.strict.iter().find(|s| s.sms.contains(&sm));
                let strict_mask = strict.map_or(0, |s| s.mask);
                let words = nak::runtime::sample::sample_words(sm, &[op.name.as_str()], 4, 0x0157);
                for w in words {
                    let (o, _) = isa::decode(w, sm).expect("sampled words decode");
                    if isa::form_of(sm, &o).map(|f| f.id) != Some(id) {
                        continue;
                    }
                    for b in (0..128).filter(|b| form.ignored >> b & 1 == 1) {
                        let x = w ^ 1u128 << b;
                        let got = isa::decode(x, sm);
                        let same = got.as_ref().is_some_and(|(o2, _)| {
                            o2.name() == op.name && isa::form_of(sm, o2).map(|f| f.id) == Some(id)
                        });
                        if strict_mask >> b & 1 == 1 {
                            assert!(
                                !same,
                                "SM{sm} {} form {}: bit {b} is fixed there, yet {x:#x} decodes as the form",
                                op.name, form.name
                            );
                            fixed += 1;
                        } else {
                            let (o2, c2) = got.unwrap_or_else(|| panic!("SM{sm} {} form {}: bit {b} is ignored there, yet {x:#x} does not decode", op.name, form.name));
                            assert!(same, "SM{sm} {}: {x:#x} decodes as another form", op.name);
                            assert_eq!(
                                o2.encode(sm, &c2),
                                Ok(x),
                                "SM{sm} {}: {x:#x} re-encodes otherwise",
                                op.name
                            );
                            raw += 1;
                        }
                    }
                }
            }
        }
    }
    println!(
        "{raw} flips of ignored bits decode and re-encode; {fixed} flips of bits fixed on their SM do not decode as the form"
    );
    assert!(
        raw > 0 && fixed > 0,
        "the spec has `ignored_on` entries to check"
    );
}
