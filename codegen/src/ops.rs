//! The op structs, the `Op` enum and the shared `isa.rs` file.

use crate::names::{enum_type, enum_variant, field, ident, op_type, op_variant};
use crate::{Error, doc};
use isa_spec::model::*;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// Rust type of a modifier value.
pub(crate) fn mod_type(spec: &Spec, m: &Modifier) -> TokenStream {
    match &m.ty {
        ModType::Bool => quote!(bool),
        ModType::Int { signed: false, .. } => quote!(u32),
        ModType::Int { signed: true, .. } => quote!(i32),
        ModType::Rel => quote!(i64),
        ModType::Enum(e) => {
            let t = enum_type(&spec.enums[*e].name);
            quote!(#t)
        }
    }
}

/// Expression for a modifier's default value.
pub(crate) fn mod_default(spec: &Spec, m: &Modifier) -> TokenStream {
    match &m.ty {
        ModType::Bool => {
            let b = m.default != 0;
            quote!(#b)
        }
        ModType::Int { signed: false, .. } => {
            let v = Literal::u32_suffixed(m.default as u32);
            quote!(#v)
        }
        ModType::Int { signed: true, .. } => {
            let v = Literal::i32_suffixed(m.default as i32);
            quote!(#v)
        }
        ModType::Rel => {
            let v = Literal::i64_suffixed(m.default);
            quote!(#v)
        }
        ModType::Enum(e) => {
            let en = &spec.enums[*e];
            let t = enum_type(&en.name);
            let v = enum_variant(&en.values[m.default as usize].name);
            quote!(#t::#v)
        }
    }
}

/// Expression for an operand's default value.
pub(crate) fn src_default(o: &Operand) -> Option<TokenStream> {
    o.default.map(|d| match (d, o.ty.is_pred()) {
        (DefaultValue::Zero, true) => quote!(Src::PT),
        (DefaultValue::Zero, false) => quote!(Src::RZ),
        (DefaultValue::False, _) => quote!(Src::FALSE),
    })
}

pub(crate) fn dst_default(o: &Operand) -> Option<TokenStream> {
    o.default.map(|_| {
        if o.ty.is_pred() {
            quote!(Reg::PT)
        } else {
            quote!(Reg::RZ)
        }
    })
}

/// `low_bits_srcs()`: the `low_bits` list as source indices.
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
        pub const fn low_bits_srcs(&self) -> &'static [usize] { &[#(#idx),*] }
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
        #[allow(unused_variables)]
        pub fn with_mem_bytes(&self, bytes: u32) -> Option<Self> { #body }
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
        pub fn mem_combinable(&self) -> bool { #(#conds)&&* }
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
        #[allow(unused_variables)]
        pub fn with_mem_at(&self, offset: i64, data: Reg) -> Option<Self> { #body }
    }
}

/// `mem_access()`: the `[memory]` table, or `None` for ops without one.
fn mem_access(op: &Op) -> TokenStream {
    let Some(m) = &op.memory else {
        return quote! {
            /// Not a memory op.
            pub fn mem_access(&self) -> Option<MemAccess> { None }
        };
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
    let doc = format!(" The memory access (`[memory]` in {}).", op.path);
    quote! {
        #[doc = #doc]
        pub fn mem_access(&self) -> Option<MemAccess> {
            let bytes: u32 = #bytes;
            Some(MemAccess { kind: #kind, bytes, signed: #signed, align: #align, addr: self.#addr, offset: self.#off as i64, data: #data })
        }
    }
}

fn value_type(t: ValueType) -> TokenStream {
    let v = match t {
        ValueType::U32 => quote!(U32),
        ValueType::I32 => quote!(I32),
        ValueType::B32 => quote!(B32),
        ValueType::F32 => quote!(F32),
        ValueType::U64 => quote!(U64),
        ValueType::I64 => quote!(I64),
        ValueType::F64 => quote!(F64),
        ValueType::Pred => quote!(Pred),
    };
    quote!(ValueType::#v)
}

fn operand_infos(ops: &[Operand], is_src: bool) -> TokenStream {
    let items = ops.iter().map(|o| {
        let name = &o.name;
        let ty = value_type(o.ty);
        let (neg, abs, not) = (o.mods.neg, o.mods.abs, o.mods.not);
        let default = if is_src {
            match src_default(o) {
                Some(d) => quote!(Some(#d)),
                None => quote!(None),
            }
        } else {
            match dst_default(o) {
                Some(d) => quote!(Some(Src::reg(#d))),
                None => quote!(None),
            }
        };
        let align = Literal::u8_unsuffixed(o.align as u8);
        quote!(OperandInfo { name: #name, ty: #ty, neg: #neg, abs: #abs, not: #not, default: #default, align: #align })
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
        op.path,
        op.name,
        op.sms()
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let header = doc(&header);
    let mut fields = Vec::new();
    for d in &op.dsts {
        let f = field(&d.name);
        let dd = doc(&format!("Destination ({}). {}", d.ty.name(), d.doc));
        fields.push(quote!(#dd pub #f: Reg));
    }
    for s in &op.srcs {
        let f = field(&s.name);
        let dd = doc(&format!("Source ({}). {}", s.ty.name(), s.doc));
        fields.push(quote!(#dd pub #f: Src));
    }
    for m in &op.modifiers {
        let f = field(&m.name);
        let t = mod_type(spec, m);
        let dd = doc(&format!("Modifier. {}", m.doc));
        fields.push(quote!(#dd pub #f: #t));
    }
    let src_infos = operand_infos(&op.srcs, true);
    let dst_infos = operand_infos(&op.dsts, false);
    let nsrc = op.srcs.len();
    let ndst = op.dsts.len();
    let src_refs: Vec<TokenStream> = op
        .srcs
        .iter()
        .map(|s| {
            let f = field(&s.name);
            quote!(&self.#f)
        })
        .collect();
    let src_muts: Vec<TokenStream> = op
        .srcs
        .iter()
        .map(|s| {
            let f = field(&s.name);
            quote!(&mut self.#f)
        })
        .collect();
    let dst_refs: Vec<TokenStream> = op
        .dsts
        .iter()
        .map(|s| {
            let f = field(&s.name);
            quote!(&self.#f)
        })
        .collect();
    let dst_muts: Vec<TokenStream> = op
        .dsts
        .iter()
        .map(|s| {
            let f = field(&s.name);
            quote!(&mut self.#f)
        })
        .collect();
    let class = &op.class;
    let mem_access = mem_access(op);
    let low_bits_srcs = low_bits_srcs(op);
    let with_mem_bytes = with_mem_bytes(spec, op);
    let with_mem_at = with_mem_at(op);
    let mem_combinable = mem_combinable(op);

    let encode = crate::encode::op_encode(spec, op)?;
    let decode = crate::decode::op_decode(spec, op)?;
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

        impl #ty {
            pub const NAME: &'static str = #name;
            pub const MNEMONIC: &'static str = #mnemonic;
            pub const CLASS: &'static str = #class;
            /// SMs that have an encoding of this op.
            pub const SMS: &'static [u32] = &[#(#sms),*];
            pub const SRCS: &'static [OperandInfo] = #src_infos;
            pub const DSTS: &'static [OperandInfo] = #dst_infos;

            pub fn srcs(&self) -> [&Src; #nsrc] { [#(#src_refs),*] }
            pub fn srcs_mut(&mut self) -> [&mut Src; #nsrc] { [#(#src_muts),*] }
            pub fn dsts(&self) -> [&Reg; #ndst] { [#(#dst_refs),*] }
            pub fn dsts_mut(&mut self) -> [&mut Reg; #ndst] { [#(#dst_muts),*] }
            #mem_access
            #low_bits_srcs
            #with_mem_bytes
            #with_mem_at
            #mem_combinable

            #encode
            #decode
            #print
            #parse
            #fold
            #legalize
        }
    })
}

/// The size every text of `e` is padded to for `chunk_sm` (a printer then
/// writes it as one fixed-size store instead of a copy of run-time length),
/// or `None` when some text is not ASCII or longer than 64 bytes.
pub(crate) fn enum_chunk_size(e: &Enum) -> Option<usize> {
    let mut texts = e
        .values
        .iter()
        .flat_map(|v| std::iter::once(&v.text).chain(v.sm_texts.iter().map(|(_, t)| t)));
    if !texts.clone().all(|t| t.is_ascii()) {
        return None;
    }
    let longest = texts.by_ref().map(|t| t.len()).max().unwrap_or(0);
    [8usize, 16, 32, 64].into_iter().find(|&n| n >= longest)
}

fn enum_items(spec: &Spec) -> TokenStream {
    let items = spec.enums.iter().map(|e| {
        let t = enum_type(&e.name);
        let d = doc(&format!(
            "{}\n\nSpec: {} (enum `{}`).",
            e.doc,
            spec.files.get(e.loc.file).path,
            e.name
        ));
        let vars: Vec<_> = e.values.iter().map(|v| enum_variant(&v.name)).collect();
        let texts: Vec<&String> = e.values.iter().map(|v| &v.text).collect();
        let names: Vec<&String> = e.values.iter().map(|v| &v.name).collect();
        let first = &vars[0];
        let idx: Vec<Literal> = (0..vars.len()).map(Literal::usize_unsuffixed).collect();
        let n = vars.len();
        // The per-SM texts as match arms on `(self, sm)`, each text as
        // `value` makes it (the text itself, or its padded chunk).
        let sm_arms = |value: &dyn Fn(&str) -> TokenStream| -> Vec<TokenStream> {
            let t = &t;
            e.values
                .iter()
                .zip(&vars)
                .flat_map(|(v, var)| {
                    v.sm_texts.iter().map(move |(sms, txt)| {
                        let sms = sms.iter().map(|s| Literal::u32_unsuffixed(*s));
                        let val = value(txt);
                        quote!((#t::#var, #(#sms)|*) => #val)
                    })
                })
                .collect()
        };
        let text_arms = sm_arms(&|txt| quote!(#txt));
        let chunk_fn = match enum_chunk_size(e) {
            Some(size) => {
                let chunk = |txt: &str| {
                    let mut b = txt.as_bytes().to_vec();
                    b.resize(size, 0);
                    let lit = Literal::byte_string(&b);
                    let n = Literal::usize_unsuffixed(txt.len());
                    quote!((#lit, #n))
                };
                let sm_chunk_arms = sm_arms(&chunk);
                let chunks = e.values.iter().map(|v| chunk(&v.text));
                let size = Literal::usize_unsuffixed(size);
                quote! {
                    /// [`Self::text_sm`] padded with zeros, and its length: a
                    /// printer writes it as one fixed-size store.
                    pub fn chunk_sm(self, sm: u32) -> (&'static [u8; #size], usize) {
                        #[allow(clippy::match_single_binding)]
                        match (self, sm) {
                            #(#sm_chunk_arms,)*
                            _ => match self { #(#t::#vars => #chunks),* },
                        }
                    }
                }
            }
            None => quote!(),
        };
        let flip = match &e.flip {
            Some(f) => {
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
            None => quote!(),
        };
        quote! {
            #d
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
            pub enum #t { #[default] #(#vars),* }
            impl #t {
                pub const ALL: [#t; #n] = [#(#t::#vars),*];
                pub const fn index(self) -> usize { match self { #(#t::#vars => #idx),* } }
                pub fn from_index(i: usize) -> Option<Self> { Self::ALL.get(i).copied() }
                /// Suffix text as the disassembler prints it.
                pub const fn text(self) -> &'static str { match self { #(#t::#vars => #texts),* } }
                pub const fn name(self) -> &'static str { match self { #(#t::#vars => #names),* } }
                /// Suffix text as the disassembler for `sm` prints it.
                pub fn text_sm(self, sm: u32) -> &'static str {
                    #[allow(clippy::match_single_binding)]
                    match (self, sm) { #(#text_arms,)* _ => self.text() }
                }
                #chunk_fn
                #flip
            }
            const _: #t = #t::#first;
        }
    });
    quote!(#(#items)*)
}

pub fn isa_file(spec: &Spec, includes: &[String]) -> Result<TokenStream, Error> {
    let enums = enum_items(spec);
    let fams: Vec<_> = spec
        .families
        .iter()
        .map(|f| enum_variant(&f.name))
        .collect();
    let fam_names: Vec<&String> = spec.families.iter().map(|f| &f.name).collect();
    let fam_widths: Vec<u32> = spec.families.iter().map(|f| f.width).collect();
    let fam_bundles: Vec<TokenStream> = spec
        .families
        .iter()
        .map(|f| match f.bundle {
            Some(b) => quote!(Some(#b)),
            None => quote!(None),
        })
        .collect();
    let fam_sms: Vec<TokenStream> = spec
        .families
        .iter()
        .map(|f| {
            let s = f.sms.iter().map(|x| Literal::u32_unsuffixed(*x));
            quote!(&[#(#s),*])
        })
        .collect();
    let fam_of_arms = spec.families.iter().zip(&fams).map(|(f, v)| {
        let s = f.sms.iter().map(|x| Literal::u32_unsuffixed(*x));
        quote!(#(#s)|* => Some(Family::#v))
    });
    let all_sms = spec.all_sms();
    let all_sms_l = all_sms.iter().map(|x| Literal::u32_unsuffixed(*x));
    // SM sets are u64 masks over ALL_SMS (see `sm_bit`).
    if all_sms.len() > 64 {
        return Err(Error {
            message: format!(
                "the families cover {} SMs; SM sets are 64-bit masks",
                all_sms.len()
            ),
            loc: None,
        });
    }
    let sm_table_len = Literal::usize_unsuffixed(all_sms.last().map_or(0, |m| *m as usize + 1));
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
    let mnemonics = mn_pairs.iter().map(|(m, sm)| quote!((#m, #sm)));
    let ugpr_arms: Vec<TokenStream> = spec
        .families
        .iter()
        .flat_map(|f| {
            f.sms
                .iter()
                .filter_map(|&sm| f.ugpr_max(sm).map(|m| (sm, m)))
                .collect::<Vec<_>>()
        })
        .map(|(sm, m)| {
            let m = Literal::u8_unsuffixed(m as u8);
            quote!(#sm => Some(#m))
        })
        .collect();
    let fam_docs: Vec<TokenStream> = spec.families.iter().map(|f| doc(&f.doc)).collect();

    let variants: Vec<_> = spec.ops.iter().map(|o| op_variant(&o.name)).collect();
    let types: Vec<_> = spec.ops.iter().map(|o| op_type(&o.name)).collect();
    let op_names: Vec<&String> = spec.ops.iter().map(|o| &o.name).collect();
    // Ops without `legal`/`traps` products encode every combination anyway.
    let any_combo: Vec<_> = spec
        .ops
        .iter()
        .map(|o| {
            let v = op_variant(&o.name);
            if crate::combo::has_rules(o) {
                quote!(Op::#v(o) => o.encode_any_combo(sm, c))
            } else {
                quote!(Op::#v(o) => o.encode(sm, c))
            }
        })
        .collect();
    let decode = crate::decode::family_decoders(spec)?;
    let dec_fns: Vec<_> = spec
        .families
        .iter()
        .map(|f| ident(&format!("decode_{}", f.name)))
        .collect();
    let print_fns: Vec<_> = spec
        .families
        .iter()
        .map(|f| ident(&format!("print_{}", f.name)))
        .collect();
    let forms = crate::decode::form_tables(spec);
    let includes = includes
        .iter()
        .map(|n| quote!(include!(concat!(env!("OUT_DIR"), "/", #n));));
    let reuse_arms = spec.families.iter().zip(&fams).map(|(f, v)| {
        let arms = f.reuse.iter().map(|(lo, bit)| quote!(#lo => Some(#bit)));
        quote!(Family::#v => match field_lo { #(#arms,)* _ => None })
    });

    Ok(quote! {
        #enums

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
        }

        /// The family an SM belongs to.
        pub const fn family_of(sm: u32) -> Option<Family> {
            match sm { #(#fam_of_arms,)* _ => None }
        }

        /// Every (mnemonic without suffixes, SM) pair the spec prints.
        pub const MNEMONICS: &[(&str, u32)] = &[#(#mnemonics),*];

        /// Highest UGPR index on `sm` (its encoding of URZ), from the
        /// families' `ugpr_max`; None where the SM has no uniform registers.
        pub const fn ugpr_max(sm: u32) -> Option<u8> {
            match sm { #(#ugpr_arms,)* _ => None }
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

        /// Every op of the spec.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Op { #(#variants(#types)),* }

        #(impl From<#types> for Op { fn from(o: #types) -> Op { Op::#variants(o) } })*

        impl Op {
            /// Names of every op, in spec order.
            pub const NAMES: &'static [&'static str] = &[#(#op_names),*];
            pub const fn name(&self) -> &'static str { match self { #(Op::#variants(_) => #types::NAME),* } }
            pub const fn class(&self) -> &'static str { match self { #(Op::#variants(_) => #types::CLASS),* } }
            pub const fn sms(&self) -> &'static [u32] { match self { #(Op::#variants(_) => #types::SMS),* } }
            pub const fn src_info(&self) -> &'static [OperandInfo] { match self { #(Op::#variants(_) => #types::SRCS),* } }
            pub const fn dst_info(&self) -> &'static [OperandInfo] { match self { #(Op::#variants(_) => #types::DSTS),* } }
            pub fn src(&self, i: usize) -> &Src { match self { #(Op::#variants(o) => o.srcs()[i]),* } }
            pub fn src_mut(&mut self, i: usize) -> &mut Src {
                match self { #(Op::#variants(o) => o.srcs_mut().into_iter().nth(i).expect("source index in range")),* }
            }
            pub fn dst(&self, i: usize) -> &Reg { match self { #(Op::#variants(o) => o.dsts()[i]),* } }
            pub fn dst_mut(&mut self, i: usize) -> &mut Reg {
                match self { #(Op::#variants(o) => o.dsts_mut().into_iter().nth(i).expect("destination index in range")),* }
            }
            /// Encode for `sm` with the guard, control and raw bits of `c`.
            /// Inlined into the caller: its jump on the variant calls the
            /// op's encoder directly (no second call and return per op).
            #[inline]
            pub fn encode(&self, sm: u32, c: &Common) -> Result<u128, EncodeError> {
                match self { #(Op::#variants(o) => o.encode(sm, c)),* }
            }
            /// [`Self::encode`] without the spec's `legal` and `traps`
            /// products (for tests that show nvdisasm rejects the
            /// combinations they leave out).
            pub fn encode_any_combo(&self, sm: u32, c: &Common) -> Result<u128, EncodeError> {
                match self { #(#any_combo),* }
            }
            /// The word, or `None` when the op does not encode on `sm`
            /// (no error message is built: for legality trials). One jump
            /// on the variant into the op's whole encoder.
            #[inline]
            pub fn try_encode(&self, sm: u32, c: &Common) -> Option<u128> {
                match self { #(Op::#variants(o) => o.try_encode(sm, c)),* }
            }

            /// Index of the encoding form the op takes on `sm`, if any.
            pub fn form_id(&self, sm: u32) -> Option<u8> {
                match self { #(Op::#variants(o) => o.form_id(sm)),* }
            }
            /// Write nvdisasm's text for the instruction at byte address
            /// `addr` into a line buffer (the fast path of `nak dis`).
            pub fn print_line(&self, c: &Common, sm: u32, addr: u64, out: &mut LineBuf) {
                match self { #(Op::#variants(o) => o.print_line(c, sm, addr, out)),* }
            }
            /// nvdisasm's text for the instruction at byte address `addr`.
            pub fn text(&self, c: &Common, sm: u32, addr: u64) -> String {
                line_text(|line| self.print_line(c, sm, addr, line))
            }
            /// The memory access of a load or store (`[memory]` in its spec file).
            pub fn mem_access(&self) -> Option<MemAccess> {
                match self { #(Op::#variants(o) => o.mem_access()),* }
            }
            /// Sources whose low n bits alone decide the low n bits of every
            /// destination (`low_bits` in its spec file).
            pub fn low_bits_srcs(&self) -> &'static [usize] {
                match self { #(Op::#variants(o) => o.low_bits_srcs()),* }
            }
            /// The same memory access with `bytes` bytes, if the op has
            /// such a zero-extending size.
            pub fn with_mem_bytes(&self, bytes: u32) -> Option<Op> {
                match self { #(Op::#variants(o) => o.with_mem_bytes(bytes).map(Op::#variants)),* }
            }
            /// Whether the memory access may be combined with another one.
            pub fn mem_combinable(&self) -> bool {
                match self { #(Op::#variants(o) => o.mem_combinable()),* }
            }
            /// The same memory access at another offset with another data
            /// register.
            pub fn with_mem_at(&self, offset: i64, data: Reg) -> Option<Op> {
                match self { #(Op::#variants(o) => o.with_mem_at(offset, data).map(Op::#variants)),* }
            }
            /// Compute the destinations from source values (CPU semantics).
            pub fn fold(&self, sm: u32, srcs: &[Value]) -> Result<FoldOut, FoldError> {
                match self { #(Op::#variants(o) => o.fold(sm, srcs)),* }
            }
            /// `fold` with Maxwell's carry flag in (`None`: unknown) and out.
            pub fn fold_cc(&self, sm: u32, srcs: &[Value], cc_in: Option<bool>) -> Result<(FoldOut, Option<bool>), FoldError> {
                match self { #(Op::#variants(o) => o.fold_cc(sm, srcs, cc_in)),* }
            }
            /// Whether the op reads and writes Maxwell's carry flag on `sm`.
            pub fn cc_use(&self, sm: u32) -> (bool, bool) {
                match self { #(Op::#variants(o) => o.cc_use(sm)),* }
            }
            /// Whether the op has fold semantics on `sm`'s family.
            pub fn has_fold(&self, sm: u32) -> bool {
                match self { #(Op::#variants(o) => o.has_fold(sm)),* }
            }
            /// Rewrite the op until it encodes on `sm`; may replace it with another op.
            pub fn legalize(&mut self, sm: u32, cx: &mut dyn LegalizeCx) -> Result<(), LegalizeError> {
                let new = match self { #(Op::#variants(o) => o.legalize(sm, cx)?),* };
                if let Some(n) = new { *self = n; }
                Ok(())
            }
        }

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

        /// Parse one tokenized line: the first op whose syntax matches and
        /// that encodes on `sm`; else the first whose syntax matches (an
        /// IR instruction not legalized yet; encoding it reports why it
        /// cannot be encoded); else the error of the best partial match.
        pub fn parse(line: &crate::asm::Line, sm: u32, addr: u64) -> Result<(Op, Common), AsmError> {
            let mut best: Option<AsmError> = None;
            let mut first: Option<(Op, Common)> = None;
            #(
                match #types::parse(line, sm, addr) {
                    None => {}
                    Some(Ok((o, c))) => {
                        if o.encode(sm, &c).is_ok() {
                            return Ok((Op::#variants(o), c));
                        }
                        first.get_or_insert((Op::#variants(o), c));
                    }
                    Some(Err(e)) => { best.get_or_insert(e); }
                }
            )*
            if let Some(f) = first {
                return Ok(f);
            }
            Err(best.unwrap_or_else(|| AsmError { col: line.mnemonic_col, message: format!("unknown instruction `{}`", line.parts.join(".")) }))
        }

        #decode
        #forms

        #(#includes)*
    })
}
