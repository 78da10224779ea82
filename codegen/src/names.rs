//! Rust names for spec names, in one place.

use proc_macro2::{Ident, Span};

fn camel(s: &str) -> String {
    s.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// `iadd3` -> `OpIadd3`.
pub fn op_type(name: &str) -> Ident {
    Ident::new(&format!("Op{}", camel(name)), Span::call_site())
}

/// Variant of the `Op` enum: `iadd3` -> `Iadd3`.
pub fn op_variant(name: &str) -> Ident {
    Ident::new(&camel(name), Span::call_site())
}

/// `fcmp` -> `Fcmp`.
pub fn enum_type(name: &str) -> Ident {
    Ident::new(&camel(name), Span::call_site())
}

/// `lt` -> `Lt`.
pub fn enum_variant(name: &str) -> Ident {
    let c = camel(name);
    let c = if c.starts_with(|ch: char| ch.is_ascii_digit()) {
        format!("V{c}")
    } else {
        c
    };
    Ident::new(&c, Span::call_site())
}

/// A field or local name; keywords get a raw identifier.
pub fn field(name: &str) -> Ident {
    match syn::parse_str::<Ident>(name) {
        Ok(i) => i,
        Err(_) => Ident::new_raw(name, Span::call_site()),
    }
}

pub fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}
