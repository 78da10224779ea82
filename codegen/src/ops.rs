//! The top-level generator: one op's file (its struct and everything the
//! per-artifact generators emit for it) and the shared `isa.rs` file. It
//! calls the generators (encode, decode, print, parse, fold, legalize, flow);
//! they call only `shared` and `names`, never back up here.

use crate::Error;
use crate::names::{enum_type, enum_variant, field, ident, op_type, op_variant};
use crate::shared::doc;
use crate::shared::{dst_default, enum_chunk_size, mod_type, spec_line, src_default, value_type};
use isa_spec::model::*;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// The register files of the families' `registers` tables, with the
/// runtime's `RegFile` variant each names.
const REG_FILES: &[(SlotKindClass, &str)] = &[
    (SlotKindClass::Gpr, "Gpr"),
    (SlotKindClass::Ugpr, "UGpr"),
    (SlotKindClass::Pred, "Pred"),
    (SlotKindClass::Upred, "UPred"),
    (SlotKindClass::Bar, "Bar"),
];

/// The Rust name of a spec view type (`View::U8`).
fn view_tokens(v: ViewType) -> TokenStream {
    let id = ident(match v {
        ViewType::U8 => "U8",
        ViewType::I8 => "I8",
        ViewType::U16 => "U16",
        ViewType::I16 => "I16",
        ViewType::U32 => "U32",
        ViewType::I32 => "I32",
        ViewType::U64 => "U64",
        ViewType::I64 => "I64",
        ViewType::F16 => "F16",
        ViewType::Bf16 => "Bf16",
        ViewType::F32 => "F32",
        ViewType::F64 => "F64",
        ViewType::F16x2 => "F16x2",
        ViewType::Bf16x2 => "Bf16x2",
    });
    quote!(View::#id)
}

/// For each source with `type_by`: `<src>_view_of(modifiers...)` (the type
/// the modifiers choose, `None`: the declared type), `<src>_view()` on the
/// op; and, with `part` selectors, `parts_ok()`: every `part` selector names a part of its
/// source's type (the encoder refuses, the decoder skips, other words).
fn src_views(spec: &Spec, op: &Op) -> TokenStream {
    let mut items = Vec::new();
    let mut checks = Vec::new();
    for s in op.srcs.iter().filter(|s| !s.type_by.is_empty()) {
        let of = ident(&format!("{}_view_of", s.name));
        let view = ident(&format!("{}_view", s.name));
        let params = s.type_by.iter().map(|&mi| {
            let m = &op.modifiers[mi];
            let (f, t) = (field(&m.name), mod_type(spec, m));
            quote!(#f: #t)
        });
        let args = s.type_by.iter().map(|&mi| {
            let f = field(&op.modifiers[mi].name);
            quote!(self.#f)
        });
        let tries = s.type_by.iter().map(|&mi| {
            let m = &op.modifiers[mi];
            let f = field(&m.name);
            let ModType::Enum(e) = m.ty else {
                unreachable!("type_by is resolved to enums")
            };
            let en = &spec.enums[e];
            let t = enum_type(&en.name);
            let arms = en.values.iter().filter_map(|v| {
                let (var, vt) = (enum_variant(&v.name), view_tokens(v.view?));
                Some(quote!(#t::#var => return Some(#vt)))
            });
            quote!(#[allow(unreachable_patterns)] match #f { #(#arms,)* _ => {} })
        });
        let doc = format!(
            " The type source `{}` is read as (`type_by`); `None`: its declared type.",
            s.name
        );
        items.push(quote! {
            #[doc = #doc]
            pub fn #of(#(#params),*) -> Option<View> {
                #(#tries)*
                None
            }
            #[doc = #doc]
            pub fn #view(&self) -> Option<View> { Self::#of(#(#args),*) }
        });
        if let Some(pi) = s.part {
            let p = field(&op.modifiers[pi].name);
            checks.push(if s.part_bytes {
                quote!(self.#view().is_none_or(|v| v.byte_part_ok(self.#p)))
            } else if s.part_half {
                quote!(self.#view().is_none_or(|v| v.half_part_ok(self.#p)))
            } else {
                quote!(self.#view().is_none_or(|v| v.part_ok(self.#p)))
            });
        }
    }
    // An op without `part` selectors has nothing to check (and no caller).
    let parts_ok = (!checks.is_empty()).then(|| {
        quote! {
            /// Whether every `part` selector names a part of its source's type.
            #[inline(always)]
            pub fn parts_ok(&self) -> bool { #(#checks)&&* }
        }
    });
    quote! {
        #(#items)*
        #parts_ok
    }
}

/// `LOW_BITS_SRCS`: the `low_bits` list as source indices.
fn low_bits_srcs(op: &Op) -> TokenStream {
    let idx = op.low_bits.iter();
    let doc = if op.low_bits.is_empty() {
        " No source decides the low bits of the results alone (no `low_bits`).".to_string()
    } else {
        format!(
            " Sources whose low n bits alone decide the low n bits of every destination (`low_bits` in {}).",
            op.path
        )
    };
    quote! {
        #[doc = #doc]
        pub const LOW_BITS_SRCS: &'static [usize] = &[#(#idx),*];
    }
}

/// `with_mem_bytes()`: the op with its size modifier set to the first
/// zero-extending value of `bytes` bytes (for combining accesses).
fn with_mem_bytes(spec: &Spec, op: &Op) -> TokenStream {
    let body = match &op.memory {
        Some(Memory {
            size: MemSize::ByModifier(i, b, s),
            ..
        }) => {
            let f = field(&op.modifiers[*i].name);
            let ty = match &op.modifiers[*i].ty {
                ModType::Enum(e) => crate::names::enum_type(&spec.enums[*e].name),
                _ => return quote!(),
            };
            // The first zero-extending value of each size.
            let mut seen = Vec::new();
            let arms = (0..b.len())
                .filter(|&k| !s[k])
                .filter(|&k| {
                    let first = !seen.contains(&b[k]);
                    seen.push(b[k]);
                    first
                })
                .map(|k| {
                    let n = b[k];
                    quote!(#n => #k,)
                })
                .collect::<Vec<_>>();
            quote! {
                let k = match bytes { #(#arms)* _ => return None };
                let mut o = *self;
                o.#f = #ty::from_index(k)?;
                Some(o)
            }
        }
        Some(Memory {
            size: MemSize::Fixed(n),
            ..
        }) => quote!((bytes == #n).then_some(*self)),
        None => quote!(None),
    };
    quote! {
        /// The same access with `bytes` bytes (a zero-extending size), if
        /// the op has such a size.
        fn with_mem_bytes(&self, bytes: u32) -> Option<Self> { #body }
    }
}

/// `mem_combinable()`: the `ordered` modifiers all hold their defaults.
fn mem_combinable(op: &Op) -> TokenStream {
    let conds: Vec<TokenStream> = match &op.memory {
        Some(m) => m
            .ordered
            .iter()
            .map(|&i| {
                let f = field(&op.modifiers[i].name);
                quote!(self.#f == Default::default())
            })
            .collect(),
        None => vec![quote!(false)],
    };
    let conds = if conds.is_empty() {
        vec![quote!(true)]
    } else {
        conds
    };
    quote! {
        /// Whether this access may be combined with another: a memory op
        /// whose ordering modifiers (`[memory] ordered`) are at their defaults.
        fn mem_combinable(&self) -> bool { #(#conds)&&* }
    }
}

/// `with_mem_at()`: the op with another offset and data register.
fn with_mem_at(op: &Op) -> TokenStream {
    let body = match &op.memory {
        Some(m) => {
            let off = field(&op.modifiers[m.offset].name);
            let set_data = match m.kind {
                MemKind::Load => {
                    let d = field(&op.dsts[m.data].name);
                    quote!(o.#d = data;)
                }
                MemKind::Store => {
                    let d = field(&op.srcs[m.data].name);
                    quote!(o.#d = Src::reg(data);)
                }
            };
            quote! {
                let mut o = *self;
                o.#off = offset.try_into().ok()?;
                #set_data
                Some(o)
            }
        }
        None => quote!(None),
    };
    quote! {
        /// The same access at another offset with another data register
        /// (`None` when the offset does not fit the modifier's type).
        fn with_mem_at(&self, offset: i64, data: Reg) -> Option<Self> { #body }
    }
}

/// `mem_access()`: the `[memory]` table (nothing for ops without one: the
/// trait's default).
fn mem_access(op: &Op) -> TokenStream {
    let Some(m) = &op.memory else {
        return quote!();
    };
    let addr = field(&op.srcs[m.addr].name);
    let off = field(&op.modifiers[m.offset].name);
    let (kind, data) = match m.kind {
        MemKind::Load => {
            let d = field(&op.dsts[m.data].name);
            (quote!(MemKind::Load), quote!(self.#d))
        }
        MemKind::Store => {
            let d = field(&op.srcs[m.data].name);
            (quote!(MemKind::Store), quote!(src_data_reg(&self.#d)))
        }
    };
    let (bytes, signed) = match &m.size {
        MemSize::Fixed(n) => (quote!(#n), quote!(false)),
        MemSize::ByModifier(i, b, s) => {
            let f = field(&op.modifiers[*i].name);
            (
                quote!({ const BYTES: &[u32] = &[#(#b),*]; BYTES[self.#f.index()] }),
                quote!({ const SIGNED: &[bool] = &[#(#s),*]; SIGNED[self.#f.index()] }),
            )
        }
    };
    let align = match m.align {
        Some(a) => quote!(#a),
        None => quote!(bytes),
    };
    let space = match m.space {
        MemSpace::Global => quote!(MemSpace::Global),
        MemSpace::Shared => quote!(MemSpace::Shared),
        MemSpace::Local => quote!(MemSpace::Local),
        MemSpace::Generic => quote!(MemSpace::Generic),
    };
    let doc = format!(" The memory access (`[memory]` in {}).", op.path);
    quote! {
        #[doc = #doc]
        fn mem_access(&self) -> Option<MemAccess> {
            let bytes: u32 = #bytes;
            Some(MemAccess { kind: #kind, space: #space, bytes, signed: #signed, align: #align, addr: self.#addr, offset: self.#off as i64, data: #data })
        }
    }
}

/// The op's `MemOp` impl: its access and the rewrites that combine
/// accesses, for an op with a `[memory]` table; the trait's defaults (not a
/// memory op) for the others.
fn mem_impl(spec: &Spec, op: &Op) -> TokenStream {
    let ty = op_type(&op.name);
    if op.memory.is_none() {
        return quote!(impl MemOp for #ty {});
    }
    let impl_doc = crate::shared::spec_doc(
        spec,
        &op.memory.as_ref().map_or(op.loc.clone(), |m| m.loc.clone()),
    );
    let (access, bytes, at, combinable) = (
        mem_access(op),
        with_mem_bytes(spec, op),
        with_mem_at(op),
        mem_combinable(op),
    );
    quote! {
        #impl_doc
        impl MemOp for #ty { #access #bytes #at #combinable }
    }
}

fn operand_infos(ops: &[Operand], is_src: bool) -> TokenStream {
    let items = ops.iter().map(|o| {
        let name = &o.name;
        let ty = value_type(o.ty);
        let mut info = quote!(OperandInfo::new(#name, #ty));
        for (has, with) in [
            (o.mods.neg, "with_neg"),
            (o.mods.abs, "with_abs"),
            (o.mods.not, "with_not"),
        ] {
            let with = ident(with);
            if has {
                info = quote!(#info.#with());
            }
        }
        let default = if is_src {
            src_default(o)
        } else {
            dst_default(o).map(|d| quote!(Src::reg(#d)))
        };
        if let Some(d) = default {
            info = quote!(#info.with_default(#d));
        }
        if o.align != 1 {
            let align = Literal::u8_unsuffixed(o.align as u8);
            info = quote!(#info.with_align(#align));
        }
        info
    });
    quote!(&[#(#items),*])
}

pub fn op_file(spec: &Spec, op: &Op) -> Result<TokenStream, Error> {
    let ty = op_type(&op.name);
    let name = &op.name;
    let mnemonic = &op.asm.mnemonic;
    let sms: Vec<Literal> = op
        .sms()
        .iter()
        .map(|s| Literal::u32_unsuffixed(*s))
        .collect();
    let header = format!(
        "`{}`: {}\n\nSpec: {} (op `{}`). SMs: {}.",
        op.asm.mnemonic,
        if op.doc.is_empty() {
            "(no description)"
        } else {
            op.doc.trim()
        },
        spec_line(spec, &op.loc),
        op.name,
        op.sms()
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let header = doc(&header);
    let impl_doc = crate::shared::spec_doc(spec, &op.loc);
    let mut fields = Vec::new();
    for d in &op.dsts {
        let f = field(&d.name);
        let dd = doc(&format!(
            "Destination ({}). {} ({})",
            d.ty.name(),
            d.doc,
            spec_line(spec, &d.loc)
        )
        .replace(".  (", ". ("));
        fields.push(quote!(#dd pub #f: Reg));
    }
    for s in &op.srcs {
        let f = field(&s.name);
        let dd = doc(&format!(
            "Source ({}). {} ({})",
            s.ty.name(),
            s.doc,
            spec_line(spec, &s.loc)
        )
        .replace(".  (", ". ("));
        fields.push(quote!(#dd pub #f: Src));
    }
    for m in &op.modifiers {
        let f = field(&m.name);
        let t = mod_type(spec, m);
        let dd = doc(&format!(
            "Modifier. {} ({})",
            m.doc,
            spec_line(spec, &m.loc)
        ));
        fields.push(quote!(#dd pub #f: #t));
    }
    let src_infos = operand_infos(&op.srcs, true);
    let dst_infos = operand_infos(&op.dsts, false);
    let src_names: Vec<_> = op.srcs.iter().map(|s| field(&s.name)).collect();
    let dst_names: Vec<_> = op.dsts.iter().map(|d| field(&d.name)).collect();
    let class = &op.class;
    let low_bits_srcs = low_bits_srcs(op);
    let src_views = src_views(spec, op);
    let mem_impl = mem_impl(spec, op);
    let flow_impl = crate::flow::op_flow(spec, op);
    let sched_impl = crate::flow::op_sched(spec, op);

    let (encode, encode_impl) = crate::encode::op_encode(spec, op)?;
    let (decode, parts) = crate::decode::op_decode(spec, op)?;
    let print = crate::print::op_print(spec, op)?;
    let parse = crate::parse::op_parse(spec, op)?;
    let fold = crate::fold::op_fold(spec, op)?;
    let legalize = crate::legalize::op_legalize(spec, op)?;

    Ok(quote! {
        #header
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct #ty {
            #(#fields,)*
        }
        op_fields!(#ty, [#(#src_names),*], [#(#dst_names),*]);

        #impl_doc
        impl #ty {
            pub const NAME: &'static str = #name;
            pub const MNEMONIC: &'static str = #mnemonic;
            pub const CLASS: &'static str = #class;
            /// SMs that have an encoding of this op.
            pub const SMS: &'static [u32] = &[#(#sms),*];
            pub const SRCS: &'static [OperandInfo] = #src_infos;
            pub const DSTS: &'static [OperandInfo] = #dst_infos;

            #low_bits_srcs
            #src_views

            #encode
            #decode
            #parse
            #fold
        }
        #mem_impl
        #flow_impl
        #sched_impl
        #encode_impl
        #impl_doc
        impl Forms for #ty {
            #parts
            #print
        }
        #legalize
    })
}

/// Each spec enum: the type, and one `enum_tables!` invocation (the
/// runtime's) with its value tables (`ALL`, `TEXTS`, `NAMES`, indexed by
/// the value's position) and its per-SM texts.
fn enum_items(spec: &Spec) -> TokenStream {
    let items = spec.enums.iter().map(|e| {
        let t = enum_type(&e.name);
        let d = doc(&format!(
            "{}\n\nSpec: {} (enum `{}`).",
            e.doc,
            spec_line(spec, &e.loc),
            e.name
        ));
        let vars: Vec<_> = e.values.iter().map(|v| enum_variant(&v.name)).collect();
        let texts: Vec<&String> = e.values.iter().map(|v| &v.text).collect();
        let names: Vec<&String> = e.values.iter().map(|v| &v.name).collect();
        let sm_texts = enum_sm_texts(e);
        let chunk = match enum_chunk_size(e) {
            Some(n) => {
                let n = Literal::usize_unsuffixed(n);
                quote!(#n)
            }
            None => quote!(_),
        };
        let flip = enum_flip(e, &t);
        let flip = if flip.is_empty() {
            quote!()
        } else {
            quote!(impl #t { #flip })
        };
        quote! {
            #d
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
            pub enum #t { #[default] #(#vars),* }
            enum_tables!(#t, #chunk, [#(#vars),*], [#(#names),*], [#(#texts),*], { #(#sm_texts),* });
            #flip
        }
    });
    quote!(#(#items)*)
}

/// The per-SM texts of an enum for `enum_tables!`, one entry per value
/// and text (its SMs merged): `(Value, 50 | 52) => "TEXT"`.
fn enum_sm_texts(e: &isa_spec::model::Enum) -> Vec<TokenStream> {
    let mut arms = Vec::new();
    for v in &e.values {
        let var = enum_variant(&v.name);
        let mut by_text: Vec<(&String, Vec<u32>)> = Vec::new();
        for (sms, txt) in &v.sm_texts {
            match by_text.iter_mut().find(|(t, _)| *t == txt) {
                Some((_, all)) => all.extend(sms),
                None => by_text.push((txt, sms.clone())),
            }
        }
        for (txt, sms) in by_text {
            let sms = sms.iter().map(|s| Literal::u32_unsuffixed(*s));
            arms.push(quote!((#var, #(#sms)|*) => #txt));
        }
    }
    arms
}

/// `flip`: the comparison that holds with the sources swapped.
fn enum_flip(e: &isa_spec::model::Enum, t: &proc_macro2::Ident) -> TokenStream {
    let Some(f) = &e.flip else {
        return quote!();
    };
    let vars: Vec<_> = e.values.iter().map(|v| enum_variant(&v.name)).collect();
    let arms = f.iter().enumerate().map(|(i, &j)| {
        let a = &vars[i];
        let b = &vars[j];
        quote!(#t::#a => #t::#b)
    });
    quote! {
        /// The comparison that holds with the sources swapped.
        pub const fn flip(self) -> Self { match self { #(#arms),* } }
    }
}

/// `Family` methods for the control value's layout (`[family.*.control]`).
fn control_items(spec: &Spec, fams: &[proc_macro2::Ident]) -> TokenStream {
    let arms = |f: &dyn Fn(&Control) -> TokenStream| {
        let a = spec.families.iter().zip(fams).map(|(fam, v)| {
            let body = f(&fam.control);
            quote!(Family::#v => #body)
        });
        quote!(match self { #(#a),* })
    };
    let slot_bits = arms(&|c| match c.slot_bits {
        Some(b) => quote!(Some(#b)),
        None => quote!(None),
    });
    let neutral = arms(&|c| {
        let n = c.neutral;
        quote!(#n)
    });
    let fields = arms(&|c| {
        let f = c.fields.iter().map(|(n, lo, w)| quote!((#n, #lo, #w)));
        quote!(&[#(#f),*])
    });
    let in_word = spec.families.iter().zip(fams).map(|(fam, v)| {
        let r = fam
            .common
            .iter()
            .find(|f| matches!(f.target, FieldTarget::Ctrl))
            .and_then(|f| f.bits.ranges.first().copied());
        match r {
            Some((lo, hi)) => quote!(Family::#v => Some((#lo, #hi - #lo))),
            None => quote!(Family::#v => None),
        }
    });
    let unsigned_absolute = spec.families.iter().zip(fams).map(|(fam, v)| {
        let u = fam.unsigned_absolute;
        quote!(Family::#v => #u)
    });
    let rz_base_with_ur = spec.families.iter().zip(fams).map(|(fam, v)| {
        let s = fam
            .rz_base_with_ur
            .iter()
            .map(|x| Literal::u32_unsuffixed(*x));
        if fam.rz_base_with_ur.is_empty() {
            quote!(Family::#v => { let _ = sm; false })
        } else {
            quote!(Family::#v => matches!(sm, #(#s)|*))
        }
    });
    let needs = arms(&|c| {
        let f = c
            .reuse_needs
            .iter()
            .map(|(lo, w, a, b)| quote!((#lo, #w, #a, #b)));
        quote!(&[#(#f),*])
    });
    let late_reads = arms(&|c| {
        let f = c.late_reads.iter().filter_map(|k| {
            REG_FILES.iter().find(|(r, _)| r == k).map(|(_, n)| {
                let n = ident(n);
                quote!(RegFile::#n)
            })
        });
        quote!(&[#(#f),*])
    });
    quote! {
        /// Register files whose sources an instruction with a read
        /// barrier may read after it issues (the others at issue).
        pub const fn late_read_files(self) -> &'static [RegFile] { #late_reads }
        /// Bits per instruction in the bundle's scheduling word (families
        /// with bundles): instruction `i` owns slot `i`.
        pub const fn control_slot_bits(self) -> Option<u32> { #slot_bits }
        /// (low bit, width) of the control value inside the instruction
        /// word, where the word holds it (the `ctrl` common field).
        pub const fn control_in_word(self) -> Option<(u32, u32)> { match self { #(#in_word),* } }
        /// The control value that stalls, waits and reuses nothing.
        pub const fn neutral_control(self) -> u32 { #neutral }
        /// The control value's fields: (name, low bit, width).
        pub const fn control_fields(self) -> &'static [(&'static str, u32, u32)] { #fields }
        /// (low bit, width, lowest, highest value): fields of the control
        /// value and the values they must hold for reuse flags to be valid.
        pub const fn reuse_needs(self) -> &'static [(u32, u32, u32, u32)] { #needs }
        /// Whether the reference disassembler prints an absolute address
        /// (zero-register base) as its offset field's unsigned value.
        pub const fn unsigned_absolute(self) -> bool { match self { #(#unsigned_absolute),* } }
        /// Whether, on `sm`, the reference prints a zero-register base added
        /// to a uniform register with its width (`[RZ.U32+UR4]`) rather than
        /// leaving both out (`[UR4]`).
        pub const fn rz_base_with_ur(self, sm: u32) -> bool { match self { #(#rz_base_with_ur),* } }
    }
}

/// The shared file `isa.rs`: the spec's enums, the families, the SM
/// tables, the op list, the decoders and the form table, then the op
/// files. Each part is a function below.
pub fn isa_file(spec: &Spec, includes: &[String]) -> Result<TokenStream, Error> {
    let enums = enum_items(spec);
    let families = family_items(spec);
    let sms = sm_items(spec)?;
    let mnemonics = mnemonic_table(spec);
    let ops = op_list(spec);
    let decode = crate::decode::family_decoders(spec)?;
    let forms = crate::decode::form_tables(spec);
    let includes = includes
        .iter()
        .map(|n| quote!(include!(concat!(env!("OUT_DIR"), "/", #n));));
    Ok(quote! {
        #enums
        #families
        #mnemonics
        #sms
        #ops
        #decode
        #forms
        #(#includes)*
    })
}

/// `Family` (each with its own instruction format) with its properties,
/// and `family_of`.
fn family_items(spec: &Spec) -> TokenStream {
    let fams: Vec<_> = spec
        .families
        .iter()
        .map(|f| enum_variant(&f.name))
        .collect();
    let fam_names: Vec<&String> = spec.families.iter().map(|f| &f.name).collect();
    let fam_widths: Vec<u32> = spec.families.iter().map(|f| f.width).collect();
    let fam_bundles = spec.families.iter().map(|f| match f.bundle {
        Some(b) => quote!(Some(#b)),
        None => quote!(None),
    });
    let fam_sms = spec.families.iter().map(|f| {
        let s = f.sms.iter().map(|x| Literal::u32_unsuffixed(*x));
        quote!(&[#(#s),*])
    });
    let fam_of_arms = spec.families.iter().zip(&fams).map(|(f, v)| {
        let s = f.sms.iter().map(|x| Literal::u32_unsuffixed(*x));
        quote!(#(#s)|* => Some(Family::#v))
    });
    let fam_docs = spec.families.iter().map(|f| doc(&f.doc));
    let control = control_items(spec, &fams);
    let reuse_arms = spec.families.iter().zip(&fams).map(|(f, v)| {
        let arms = f.reuse.iter().map(|(lo, bit)| quote!(#lo => Some(#bit)));
        quote!(Family::#v => match field_lo { #(#arms,)* _ => None })
    });
    quote! {
        /// Hardware families, each with its own instruction format.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Family { #(#fam_docs #fams),* }

        impl Family {
            pub const ALL: &'static [Family] = &[#(Family::#fams),*];
            pub const fn name(self) -> &'static str { match self { #(Family::#fams => #fam_names),* } }
            /// Bits per instruction word.
            pub const fn width(self) -> u32 { match self { #(Family::#fams => #fam_widths),* } }
            /// Instructions per scheduling word, where one precedes a group.
            pub const fn bundle(self) -> Option<u32> { match self { #(Family::#fams => #fam_bundles),* } }
            pub const fn sms(self) -> &'static [u32] { match self { #(Family::#fams => #fam_sms),* } }
            /// Control bit that marks the register field starting at `field_lo` as `.reuse`.
            pub const fn reuse_bit(self, field_lo: u32) -> Option<u32> { match self { #(#reuse_arms),* } }
            #control
        }

        /// The family an SM belongs to.
        pub const fn family_of(sm: u32) -> Option<Family> {
            match sm { #(#fam_of_arms,)* _ => None }
        }
    }
}

/// `MNEMONICS`: every mnemonic (first part) the spec prints, one row per
/// mnemonic with its SMs (an alias or per-SM syntax counts where it
/// applies).
fn mnemonic_table(spec: &Spec) -> TokenStream {
    let mut mn_pairs: Vec<(String, u32)> = Vec::new();
    for o in &spec.ops {
        let sms = o.sms();
        let mut names: Vec<(&String, Option<&Vec<u32>>)> = vec![(&o.asm.mnemonic, None)];
        names.extend(o.asm.variants.iter().map(|(s, a)| (&a.mnemonic, Some(s))));
        names.extend(o.aliases.iter().map(|a| (&a.mnemonic, None)));
        for (m, only) in names {
            let first = m.split('.').next().unwrap_or(m).to_string();
            for sm in &sms {
                if only.is_none_or(|s| s.contains(sm)) {
                    mn_pairs.push((first.clone(), *sm));
                }
            }
        }
    }
    mn_pairs.sort();
    mn_pairs.dedup();
    let mut mn_rows: Vec<(String, Vec<u32>)> = Vec::new();
    for (m, sm) in mn_pairs {
        match mn_rows.last_mut() {
            Some((last, sms)) if *last == m => sms.push(sm),
            _ => mn_rows.push((m, vec![sm])),
        }
    }
    let mnemonics = mn_rows.iter().map(|(m, sms)| {
        let sms = sms.iter().map(|s| Literal::u32_unsuffixed(*s));
        quote!((#m, &[#(#sms),*]))
    });
    quote! {
        /// Every mnemonic (without suffixes) the spec prints, with the SMs
        /// it is printed on.
        pub const MNEMONICS: &[(&str, &[u32])] = &[#(#mnemonics),*];
    }
}

/// Per-SM tables: `zero_index`, `reference_nvdisasm`, `ALL_SMS` and
/// `sm_bit` (SM sets are 64-bit masks over `ALL_SMS`, so more than 64 SMs
/// is an error).
fn sm_items(spec: &Spec) -> Result<TokenStream, Error> {
    let all_sms = spec.all_sms();
    if all_sms.len() > 64 {
        return Err(Error {
            message: format!(
                "the families cover {} SMs; SM sets are 64-bit masks",
                all_sms.len()
            ),
            loc: None,
        });
    }
    let all_sms_l = all_sms.iter().map(|x| Literal::u32_unsuffixed(*x));
    let sm_table_len = Literal::usize_unsuffixed(all_sms.last().map_or(0, |m| *m as usize + 1));
    // One arm per register file, its SMs grouped by zero index, so that
    // with the file known at the call site a lookup is one test of `sm`.
    let zero_arms = REG_FILES.iter().map(|&(kind, file)| {
        let mut by_zero: Vec<(u32, Vec<u32>)> = Vec::new();
        for f in &spec.families {
            for &sm in &f.sms {
                let Some(z) = f.zero_index(kind, sm) else {
                    continue;
                };
                match by_zero.iter_mut().find(|(v, _)| *v == z) {
                    Some((_, sms)) => sms.push(sm),
                    None => by_zero.push((z, vec![sm])),
                }
            }
        }
        let groups = by_zero.iter().map(|(z, sms)| {
            let z = Literal::u8_unsuffixed(*z as u8);
            quote!(#(#sms)|* => Some(#z))
        });
        let file = format_ident!("{}", file);
        quote!(RegFile::#file => match sm { #(#groups,)* _ => None })
    });
    let reference_arms = spec
        .families
        .iter()
        .flat_map(|f| f.reference_nvdisasm.iter())
        .map(|(sm, v)| quote!(#sm => Some(#v)));
    Ok(quote! {
        /// The hardware index of `file`'s zero register (RZ, URZ) or true
        /// predicate (PT, UPT) on `sm`, from the families' `registers`; the
        /// file's registers are the indices below it. None where the SM has
        /// no registers of that file.
        pub const fn zero_index(sm: u32, file: RegFile) -> Option<u8> {
            match file { #(#zero_arms,)* }
        }

        /// The major version of the nvdisasm whose text is the reference for
        /// `sm` (the families' `[reference]` tables).
        pub const fn reference_nvdisasm(sm: u32) -> Option<u32> {
            match sm { #(#reference_arms,)* _ => None }
        }

        /// Every SM the spec covers.
        pub const ALL_SMS: &[u32] = &[#(#all_sms_l),*];

        /// `sm`'s bit in the generated SM sets (its position in
        /// [`ALL_SMS`]), 0 for an SM the spec does not cover: one table
        /// load, so testing an SM set is one AND rather than a jump table.
        #[inline]
        pub const fn sm_bit(sm: u32) -> u64 {
            const BITS: [u64; #sm_table_len] = {
                let mut t = [0u64; #sm_table_len];
                let mut i = 0;
                while i < ALL_SMS.len() {
                    t[ALL_SMS[i] as usize] = 1 << i;
                    i += 1;
                }
                t
            };
            if (sm as usize) < BITS.len() { BITS[sm as usize] } else { 0 }
        }
    })
}

/// The op list (`define_ops!`: `Op` and its methods are the runtime's),
/// and `decode` and `printer`, which pick the family's decoder.
fn op_list(spec: &Spec) -> TokenStream {
    let fams: Vec<_> = spec
        .families
        .iter()
        .map(|f| enum_variant(&f.name))
        .collect();
    let variants = spec.ops.iter().map(|o| op_variant(&o.name));
    let types = spec.ops.iter().map(|o| op_type(&o.name));
    let dec_fns = spec
        .families
        .iter()
        .map(|f| ident(&format!("decode_{}", f.name)));
    let print_fns = spec
        .families
        .iter()
        .map(|f| ident(&format!("print_{}", f.name)));
    quote! {
        define_ops! { #(#variants(#types)),* }

        /// Decode one instruction word; `None` for a word no op of the spec matches.
        #[inline]
        pub fn decode(w: u128, sm: u32) -> Option<(Op, Common)> {
            match family_of(sm)? { #(Family::#fams => #dec_fns(w, sm)),* }
        }

        /// The decode-and-print of `sm`'s family (for a stream: the
        /// family is looked up once, not per word): `f(w, sm, addr, ctrl,
        /// out)` prints what [`decode`] and [`Op::print_line`] would (with
        /// `ctrl` as the control bits where the family has bundles), or
        /// returns `None`, printing nothing, where [`decode`] would.
        pub fn printer(sm: u32) -> Option<fn(u128, u32, u64, u32, &mut LineBuf) -> Option<()>> {
            Some(match family_of(sm)? { #(Family::#fams => #print_fns),* })
        }
    }
}
