//! Checks of `[fold]` expressions: parsed with syn, then walked against an
//! allow-list of constructs and the names in scope, with a small type check.
//!
//! The fold language is a subset of Rust:
//! - literals, names in scope, unary and binary operators, casts to
//!   primitive types, parentheses, tuples and `.0`-style fields, `if`/`else`,
//!   `match` (patterns: literals, ranges, enum paths, bindings, `_`, `|`);
//! - calls of the helpers in `nak/src/runtime/fold_fns.rs` ([`HELPERS`]), of
//!   primitive associated functions (`f32::from_bits`, `u64::from`) and of
//!   closures bound in the `let` block; method calls from [`METHODS`];
//!   `?` after a helper call (its `FoldError` makes the value unfoldable);
//!   a string literal as a helper argument (`fold_unmodelled("...")`);
//! - in the `let` block only: `let` statements (closures allowed as their
//!   initializer), and assignments to names bound there.
//!
//! Rejected: macros, loops, `unsafe`, `return`/`break`, other `?`, references,
//! struct literals, items, closures outside a `let` initializer.
//!
//! Names in scope: each source `a` (modifiers applied), `a_raw`, `a_neg`,
//! `a_abs`, `a_not`; each modifier; `sm`; names bound by `let`, closure
//! parameters and match arms; enum values as `Enum::Value` (CamelCase, as
//! generated: `Fcmp::Lt`); primitive constants (`u32::MAX`).

use crate::codes::Code;
use crate::diag::{Diagnostic, Loc, Report};
use crate::model::*;
use proc_macro2::Span;
use std::collections::HashMap;
use syn::spanned::Spanned;

/// Public functions of `nak/src/runtime/fold_fns.rs` (a test keeps this in sync).
pub const HELPERS: &[&str] = &[
    "add3_neg",
    "dadd_f64",
    "dcmp_f64",
    "dfma_f64",
    "dmnmx_f64",
    "dmul_f64",
    "f2f_f32",
    "f2i_u32",
    "fadd_f32",
    "fcmp_f32",
    "ffma_f32",
    "fmnmx_f32",
    "fmul_f32",
    "fold_unmodelled",
    "frnd_f32",
    "frnd_f64",
    "ftz_f32",
    "half_lanes",
    "i2f_f32",
    "icmp_holds",
    "lea_hi_u32",
    "lut3_u32",
    "mufu_f32",
    "pack_half_lanes",
    "prmt_u32",
    "round_f64_pair_to_f32",
    "round_to_format",
    "setop_apply",
    "shf_u32",
    "shift_amount",
];

/// Methods a fold may call.
pub const METHODS: &[&str] = &[
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "wrapping_neg",
    "wrapping_shl",
    "wrapping_shr",
    "wrapping_div",
    "wrapping_rem",
    "overflowing_add",
    "overflowing_sub",
    "overflowing_mul",
    "checked_add",
    "checked_sub",
    "checked_div",
    "checked_shl",
    "checked_shr",
    "saturating_add",
    "saturating_sub",
    "saturating_mul",
    "rotate_left",
    "rotate_right",
    "count_ones",
    "count_zeros",
    "leading_zeros",
    "trailing_zeros",
    "leading_ones",
    "trailing_ones",
    "reverse_bits",
    "swap_bytes",
    "is_power_of_two",
    "unsigned_abs",
    "abs",
    "signum",
    "min",
    "max",
    "clamp",
    "pow",
    "to_bits",
    "mul_add",
    "sqrt",
    "floor",
    "ceil",
    "round",
    "trunc",
    "fract",
    "copysign",
    "powi",
    "powf",
    "is_nan",
    "is_infinite",
    "is_finite",
    "is_sign_negative",
    "is_sign_positive",
    "recip",
    "exp2",
    "log2",
    "sin",
    "cos",
    "unwrap_or",
    "then_some",
    "into",
];

const PRIMS: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128", "f32", "f64", "bool",
    "usize", "isize",
];

const PRIM_ITEMS: &[&str] = &[
    "MAX",
    "MIN",
    "BITS",
    "INFINITY",
    "NEG_INFINITY",
    "NAN",
    "EPSILON",
    "MIN_POSITIVE",
    "from_bits",
    "from",
    "wrapping_add",
    "max",
    "min",
];

/// A coarse type: enough to catch `pred = a + b` or `u32 + u64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Int(&'static str),
    Float(&'static str),
    Bool,
    /// An unsuffixed integer literal (fits any integer type).
    IntLit,
    FloatLit,
    Unknown,
}

impl Ty {
    fn prim(s: &str) -> Ty {
        match PRIMS.iter().find(|p| **p == s) {
            Some(&"bool") => Ty::Bool,
            Some(p @ (&"f32" | &"f64")) => Ty::Float(p),
            Some(p) => Ty::Int(p),
            None => Ty::Unknown,
        }
    }
    fn of_value(t: ValueType) -> Ty {
        match t {
            ValueType::U32 | ValueType::B32 => Ty::Int("u32"),
            ValueType::I32 => Ty::Int("i32"),
            ValueType::U64 => Ty::Int("u64"),
            ValueType::I64 => Ty::Int("i64"),
            ValueType::F32 => Ty::Float("f32"),
            ValueType::F64 => Ty::Float("f64"),
            ValueType::Pred => Ty::Bool,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Ty::Int(n) | Ty::Float(n) => n,
            Ty::Bool => "bool",
            Ty::IntLit => "integer",
            Ty::FloatLit => "float",
            Ty::Unknown => "_",
        }
    }
    /// Whether a value of `self` may stand where `want` is expected.
    fn fits(self, want: Ty) -> bool {
        match (self, want) {
            (Ty::Unknown, _) | (_, Ty::Unknown) => true,
            (Ty::IntLit, Ty::Int(_) | Ty::IntLit) => true,
            (Ty::Int(_), Ty::IntLit) => true,
            (Ty::FloatLit, Ty::Float(_) | Ty::FloatLit) => true,
            (Ty::Float(_), Ty::FloatLit) => true,
            (a, b) => a == b,
        }
    }
    /// The more specific of two compatible types.
    fn join(self, other: Ty) -> Ty {
        match self {
            Ty::IntLit | Ty::FloatLit | Ty::Unknown => other,
            t => t,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Binding {
    Value(Ty),
    /// A closure bound in the `let` block.
    Closure,
    /// A name bound in the `let` block, assignable if `mut`.
    Local(Ty, bool),
}

struct Checker<'a> {
    report: &'a mut Report,
    /// Where the parsed text starts in the file, minus any prefix added
    /// before parsing (the `{` around a `let` block).
    base: isize,
    /// Span to use for end-of-input errors.
    end: Loc,
    file: usize,
    scopes: Vec<HashMap<String, Binding>>,
    enums: HashMap<String, Vec<String>>,
    /// In the `let` block's statements (closures and assignments allowed).
    in_let_block: bool,
}

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

fn variant(s: &str) -> String {
    let c = camel(s);
    if c.starts_with(|ch: char| ch.is_ascii_digit()) {
        format!("V{c}")
    } else {
        c
    }
}

impl Checker<'_> {
    fn loc(&self, span: Span) -> Loc {
        let r = span.byte_range();
        if r.start == 0 && r.end == 0 {
            return self.end.clone();
        }
        let s = (self.base + r.start as isize).max(0) as usize;
        let e = (self.base + r.end as isize).max(s as isize) as usize;
        Loc {
            file: self.file,
            span: s..e,
        }
    }
    fn err(&mut self, code: Code, span: Span, msg: String) {
        let loc = self.loc(span);
        self.report.push(Diagnostic::error(code, msg).at(loc));
    }
    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }
    fn bind(&mut self, name: String, b: Binding) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name, b);
        }
    }

    fn path(&mut self, p: &syn::Path, span: Span) -> Ty {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if p.leading_colon.is_some() || p.segments.iter().any(|s| !s.arguments.is_none()) {
            self.err(
                Code::S0903,
                span,
                "paths with `::` prefixes or generics are not allowed in folds".into(),
            );
            return Ty::Unknown;
        }
        match segs.as_slice() {
            [one] => match self.lookup(one) {
                Some(Binding::Value(t) | Binding::Local(t, _)) => t,
                Some(Binding::Closure) => Ty::Unknown,
                None if HELPERS.contains(&one.as_str()) => Ty::Unknown,
                None => {
                    self.err(
                        Code::S0906,
                        span,
                        format!("unknown name `{one}` in a fold expression"),
                    );
                    Ty::Unknown
                }
            },
            [ty, item] if PRIMS.contains(&ty.as_str()) => {
                if !PRIM_ITEMS.contains(&item.as_str()) {
                    self.err(
                        Code::S0906,
                        span,
                        format!("unknown item `{ty}::{item}` in a fold expression"),
                    );
                    return Ty::Unknown;
                }
                match item.as_str() {
                    "BITS" => Ty::Int("u32"),
                    i if i.chars().all(|c| c.is_ascii_uppercase() || c == '_') => Ty::prim(ty),
                    _ => Ty::Unknown,
                }
            }
            [en, val] => match self.enums.get(en) {
                Some(vals) if vals.contains(val) => Ty::Unknown,
                Some(vals) => {
                    let list = vals.join(", ");
                    self.err(
                        Code::S0906,
                        span,
                        format!("`{en}` has no value `{val}` (values: {list})"),
                    );
                    Ty::Unknown
                }
                None => {
                    self.err(
                        Code::S0906,
                        span,
                        format!("unknown enum `{en}` in a fold expression"),
                    );
                    Ty::Unknown
                }
            },
            _ => {
                self.err(
                    Code::S0906,
                    span,
                    format!("unknown path `{}` in a fold expression", segs.join("::")),
                );
                Ty::Unknown
            }
        }
    }

    fn pat(&mut self, p: &syn::Pat, ty: Ty) {
        match p {
            syn::Pat::Ident(i) => {
                if i.by_ref.is_some() || i.subpat.is_some() {
                    self.err(Code::S0903, p.span(), "only plain bindings are allowed in fold patterns".into());
                }
                let b = if self.in_let_block {
                    Binding::Local(ty, i.mutability.is_some())
                } else {
                    Binding::Value(ty)
                };
                self.bind(i.ident.to_string(), b);
            }
            syn::Pat::Wild(_) => {}
            syn::Pat::Lit(_) => {}
            syn::Pat::Range(_) => {}
            syn::Pat::Paren(x) => self.pat(&x.pat, ty),
            syn::Pat::Guard(g) => {
                self.pat(&g.pat, ty);
                self.expr(&g.guard);
            }
            syn::Pat::Path(x) => {
                self.path(&x.path, x.span());
            }
            syn::Pat::Or(o) => {
                for c in &o.cases {
                    self.pat(c, ty);
                }
            }
            syn::Pat::Tuple(t) => {
                for e in &t.elems {
                    self.pat(e, Ty::Unknown);
                }
            }
            syn::Pat::Type(t) => {
                let ty = self.ty(&t.ty);
                self.pat(&t.pat, ty);
            }
            _ => self.err(
                Code::S0903,
                p.span(),
                "this pattern is not allowed in folds (literals, ranges, enum values, bindings, `_`, `|`, tuples)".into(),
            ),
        }
    }

    fn ty(&mut self, t: &syn::Type) -> Ty {
        match t {
            syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                let n = p.path.segments[0].ident.to_string();
                if PRIMS.contains(&n.as_str()) {
                    Ty::prim(&n)
                } else if self.enums.contains_key(&n) {
                    Ty::Unknown
                } else {
                    self.err(
                        Code::S0906,
                        t.span(),
                        format!("unknown type `{n}` in a fold"),
                    );
                    Ty::Unknown
                }
            }
            syn::Type::Tuple(tt) => {
                for e in &tt.elems {
                    self.ty(e);
                }
                Ty::Unknown
            }
            _ => {
                self.err(
                    Code::S0903,
                    t.span(),
                    "only primitive types are allowed in folds".into(),
                );
                Ty::Unknown
            }
        }
    }

    fn mismatch(&mut self, span: Span, what: String) {
        self.err(Code::S0904, span, what);
    }

    fn block(&mut self, b: &syn::Block) -> Ty {
        self.scopes.push(HashMap::new());
        let mut t = Ty::Unknown;
        for (i, s) in b.stmts.iter().enumerate() {
            t = self.stmt(s, i + 1 == b.stmts.len());
        }
        self.scopes.pop();
        t
    }

    fn stmt(&mut self, s: &syn::Stmt, last: bool) -> Ty {
        match s {
            syn::Stmt::Local(l) => {
                let mut t = Ty::Unknown;
                if let Some(init) = &l.init {
                    if init.diverge.is_some() {
                        self.err(
                            Code::S0903,
                            l.span(),
                            "`let ... else` is not allowed in folds".into(),
                        );
                    }
                    t = match &*init.expr {
                        syn::Expr::Closure(c) if self.in_let_block => {
                            self.closure(c);
                            if let syn::Pat::Ident(i) = &l.pat {
                                self.bind(i.ident.to_string(), Binding::Closure);
                                return Ty::Unknown;
                            }
                            Ty::Unknown
                        }
                        e => self.expr(e),
                    };
                }
                self.pat(&l.pat, t);
                Ty::Unknown
            }
            syn::Stmt::Expr(e, semi) => {
                let t = self.expr(e);
                if last && semi.is_none() {
                    t
                } else {
                    Ty::Unknown
                }
            }
            syn::Stmt::Item(i) => {
                self.err(
                    Code::S0903,
                    i.span(),
                    "items (fn, struct, use, ...) are not allowed in folds".into(),
                );
                Ty::Unknown
            }
            syn::Stmt::Macro(m) => {
                self.err(
                    Code::S0903,
                    m.span(),
                    "macros are not allowed in folds".into(),
                );
                Ty::Unknown
            }
        }
    }

    fn closure(&mut self, c: &syn::ExprClosure) {
        if c.asyncness.is_some() || c.capture.is_some() || c.constness.is_some() {
            self.err(
                Code::S0903,
                c.span(),
                "only plain closures are allowed in folds".into(),
            );
        }
        self.scopes.push(HashMap::new());
        let was = self.in_let_block;
        self.in_let_block = false;
        for p in &c.inputs {
            self.pat(p, Ty::Unknown);
        }
        let want = match &c.output {
            syn::ReturnType::Type(_, t) => self.ty(t),
            syn::ReturnType::Default => Ty::Unknown,
        };
        let got = self.expr(&c.body);
        if !got.fits(want) {
            self.mismatch(
                c.body.span(),
                format!("closure returns {}, declared {}", got.name(), want.name()),
            );
        }
        self.in_let_block = was;
        self.scopes.pop();
    }

    /// The type of an expression of the fold subset; anything outside the
    /// subset is reported (S0903) and typed `Unknown` so checking goes on.
    fn expr(&mut self, e: &syn::Expr) -> Ty {
        use syn::Expr as E;
        match e {
            E::Lit(l) => self.lit(l),
            E::Path(p) if p.qself.is_some() => {
                self.err(
                    Code::S0903,
                    p.span(),
                    "qualified paths are not allowed in folds".into(),
                );
                Ty::Unknown
            }
            E::Path(p) => self.path(&p.path, p.span()),
            E::Paren(p) => self.expr(&p.expr),
            E::Group(g) => self.expr(&g.expr),
            E::Unary(u) => self.unary(u),
            E::Binary(b) => self.binary(b),
            E::Cast(c) => self.cast(c),
            E::If(i) => self.if_expr(i),
            E::Block(b) if b.label.is_none() => self.block(&b.block),
            E::Match(m) => self.match_expr(m),
            E::Tuple(t) => {
                for x in &t.elems {
                    self.expr(x);
                }
                Ty::Unknown
            }
            E::Field(f) => self.field(f),
            E::MethodCall(m) => self.method_call(m),
            E::Call(c) => self.call(e, c),
            E::Try(t) => self.try_expr(t),
            E::Assign(a) if self.in_let_block => {
                self.assign_target(&a.left);
                self.expr(&a.right);
                Ty::Unknown
            }
            _ => {
                self.err(Code::S0903, e.span(), not_in_subset(e).into());
                Ty::Unknown
            }
        }
    }

    /// Number and bool literals, typed by their suffix.
    fn lit(&mut self, l: &syn::ExprLit) -> Ty {
        match &l.lit {
            syn::Lit::Int(i) if i.suffix().is_empty() => Ty::IntLit,
            syn::Lit::Int(i) => Ty::prim(i.suffix()),
            syn::Lit::Float(f) if f.suffix().is_empty() => Ty::FloatLit,
            syn::Lit::Float(f) => Ty::prim(f.suffix()),
            syn::Lit::Bool(_) => Ty::Bool,
            _ => {
                self.err(
                    Code::S0903,
                    l.span(),
                    "only number and bool literals are allowed in folds".into(),
                );
                Ty::Unknown
            }
        }
    }

    /// `-x` and `!x` keep their operand's type; `-bool`, `!float` and `*x`
    /// are errors.
    fn unary(&mut self, u: &syn::ExprUnary) -> Ty {
        let t = self.expr(&u.expr);
        match u.op {
            syn::UnOp::Neg(_) if t == Ty::Bool => {
                self.mismatch(u.span(), "cannot negate a bool (use `!`)".into());
                Ty::Unknown
            }
            syn::UnOp::Not(_) if matches!(t, Ty::Float(_) | Ty::FloatLit) => {
                self.mismatch(u.span(), "`!` of a float".into());
                Ty::Unknown
            }
            syn::UnOp::Deref(_) => {
                self.err(Code::S0903, u.span(), "`*` is not allowed in folds".into());
                Ty::Unknown
            }
            _ => t,
        }
    }

    /// `x as T` is `T`; casts between bool and float are errors.
    fn cast(&mut self, c: &syn::ExprCast) -> Ty {
        let from = self.expr(&c.expr);
        let to = self.ty(&c.ty);
        if from == Ty::Bool && matches!(to, Ty::Float(_)) {
            self.mismatch(c.span(), "cannot cast a bool to a float".into());
        }
        if matches!(from, Ty::Float(_) | Ty::FloatLit) && to == Ty::Bool {
            self.mismatch(c.span(), "cannot cast a float to bool".into());
        }
        to
    }

    /// A bool condition and branches of one type.
    fn if_expr(&mut self, i: &syn::ExprIf) -> Ty {
        let c = self.expr(&i.cond);
        if !c.fits(Ty::Bool) {
            self.mismatch(
                i.cond.span(),
                format!("`if` condition is {}, not bool", c.name()),
            );
        }
        let t = self.block(&i.then_branch);
        let Some((_, els)) = &i.else_branch else {
            return Ty::Unknown;
        };
        let f = self.expr(els);
        if !f.fits(t) {
            self.mismatch(
                els.span(),
                format!("`if` branches differ: {} and {}", t.name(), f.name()),
            );
        }
        t.join(f)
    }

    /// Arms of one type, each pattern checked against the scrutinee in a
    /// scope of its own.
    fn match_expr(&mut self, m: &syn::ExprMatch) -> Ty {
        let scrut = self.expr(&m.expr);
        let mut out = Ty::Unknown;
        for arm in &m.arms {
            self.scopes.push(HashMap::new());
            self.pat(&arm.pat, scrut);
            let t = self.expr(&arm.body);
            if !t.fits(out) {
                self.mismatch(
                    arm.body.span(),
                    format!("`match` arms differ: {} and {}", out.name(), t.name()),
                );
            }
            out = out.join(t);
            self.scopes.pop();
        }
        out
    }

    /// Only tuple fields (`.0`): folds have no structs.
    fn field(&mut self, f: &syn::ExprField) -> Ty {
        self.expr(&f.base);
        if let syn::Member::Named(n) = &f.member {
            self.err(
                Code::S0903,
                n.span(),
                "only tuple fields (`.0`) are allowed in folds".into(),
            );
        }
        Ty::Unknown
    }

    /// Methods of the allow-list ([`METHODS`]), typed by [`method_type`].
    fn method_call(&mut self, m: &syn::ExprMethodCall) -> Ty {
        let recv = self.expr(&m.receiver);
        let name = m.method.to_string();
        for a in &m.args {
            self.expr(a);
        }
        if m.turbofish.is_some() {
            self.err(
                Code::S0903,
                m.span(),
                "turbofish is not allowed in folds".into(),
            );
        }
        if !METHODS.contains(&name.as_str()) {
            self.err(
                Code::S0906,
                m.method.span(),
                format!("method `{name}` is not in the fold allow-list"),
            );
            return Ty::Unknown;
        }
        method_type(&name, recv)
    }

    /// A call of a fold helper, a closure bound in `let`, or a primitive's
    /// associated function (`f32::from_bits`); its arguments are checked
    /// (a helper's message string aside).
    fn call(&mut self, e: &syn::Expr, c: &syn::ExprCall) -> Ty {
        let helper = is_helper_call(e);
        for a in &c.args {
            // A helper may take a message (`fold_unmodelled("...")`).
            let text = matches!(a, syn::Expr::Lit(l) if matches!(l.lit, syn::Lit::Str(_)));
            if !(helper && text) {
                self.expr(a);
            }
        }
        match &*c.func {
            syn::Expr::Path(p) if p.qself.is_none() => self.callee(p),
            f => {
                self.err(
                    Code::S0903,
                    f.span(),
                    "only named functions can be called in folds".into(),
                );
                Ty::Unknown
            }
        }
    }

    /// The type a named callee returns, or S0906 when it is not one a fold
    /// may call.
    fn callee(&mut self, p: &syn::ExprPath) -> Ty {
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        match segs.as_slice() {
            [one] if HELPERS.contains(&one.as_str()) => Ty::Unknown,
            [one] if self.lookup(one) == Some(Binding::Closure) => Ty::Unknown,
            [one] => {
                self.err(
                    Code::S0906,
                    p.span(),
                    format!("`{one}` is not a fold helper (nak/src/runtime/fold_fns.rs) or a closure bound in `let`"),
                );
                Ty::Unknown
            }
            [ty, f] if PRIMS.contains(&ty.as_str()) => {
                self.path(&p.path, p.span());
                if f == "from_bits" || f == "from" {
                    Ty::prim(ty)
                } else {
                    Ty::Unknown
                }
            }
            _ => {
                self.path(&p.path, p.span());
                Ty::Unknown
            }
        }
    }

    /// A helper returning `Result<_, FoldError>` passes its error on with
    /// `?` (the fold then reports the value as not foldable); `?` on
    /// anything else is an error.
    fn try_expr(&mut self, t: &syn::ExprTry) -> Ty {
        if !is_helper_call(&t.expr) {
            self.err(
                Code::S0903,
                t.question_token.span(),
                "`?` is allowed only on a call of a fold helper".into(),
            );
        }
        self.expr(&t.expr);
        Ty::Unknown
    }

    fn assign_target(&mut self, left: &syn::Expr) {
        if let syn::Expr::Path(p) = left
            && let Some(id) = p.path.get_ident()
        {
            match self.lookup(&id.to_string()) {
                Some(Binding::Local(_, true)) => {}
                Some(_) => self.err(
                    Code::S0903,
                    left.span(),
                    format!("`{id}` is not a `let mut` name of the `let` block"),
                ),
                None => self.err(
                    Code::S0906,
                    left.span(),
                    format!("unknown name `{id}` in a fold expression"),
                ),
            }
            return;
        }
        self.err(
            Code::S0903,
            left.span(),
            "only names bound with `let mut` can be assigned".into(),
        );
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> Ty {
        use syn::BinOp as B;
        if matches!(
            b.op,
            B::AddAssign(_)
                | B::SubAssign(_)
                | B::MulAssign(_)
                | B::DivAssign(_)
                | B::RemAssign(_)
                | B::BitXorAssign(_)
                | B::BitAndAssign(_)
                | B::BitOrAssign(_)
                | B::ShlAssign(_)
                | B::ShrAssign(_)
        ) {
            if self.in_let_block {
                self.assign_target(&b.left);
            } else {
                self.err(
                    Code::S0903,
                    b.span(),
                    "assignments are allowed only in the `let` block".into(),
                );
            }
            self.expr(&b.right);
            return Ty::Unknown;
        }
        let l = self.expr(&b.left);
        let r = self.expr(&b.right);
        let op = quote_op(&b.op);
        match b.op {
            B::And(_) | B::Or(_) => {
                for (t, side) in [(l, &b.left), (r, &b.right)] {
                    if !t.fits(Ty::Bool) {
                        self.mismatch(
                            side.span(),
                            format!("`{op}` needs bool operands, found {}", t.name()),
                        );
                    }
                }
                Ty::Bool
            }
            B::Eq(_) | B::Ne(_) | B::Lt(_) | B::Le(_) | B::Gt(_) | B::Ge(_) => {
                if !l.fits(r) {
                    self.mismatch(
                        b.span(),
                        format!("mismatched types: {} {op} {}", l.name(), r.name()),
                    );
                }
                Ty::Bool
            }
            B::Shl(_) | B::Shr(_) => {
                if matches!(l, Ty::Bool | Ty::Float(_) | Ty::FloatLit) {
                    self.mismatch(b.span(), format!("cannot shift {}", l.name()));
                }
                l
            }
            B::BitAnd(_) | B::BitOr(_) | B::BitXor(_) => {
                if !l.fits(r) {
                    self.mismatch(
                        b.span(),
                        format!("mismatched types: {} {op} {}", l.name(), r.name()),
                    );
                }
                l.join(r)
            }
            _ => {
                if l == Ty::Bool || r == Ty::Bool {
                    self.mismatch(b.span(), format!("arithmetic `{op}` on bool"));
                    return Ty::Unknown;
                }
                if !l.fits(r) {
                    self.mismatch(
                        b.span(),
                        format!("mismatched types: {} {op} {}", l.name(), r.name()),
                    );
                }
                l.join(r)
            }
        }
    }
}

/// `helper(...)` with a helper of `nak/src/runtime/fold_fns.rs`.
fn is_helper_call(e: &syn::Expr) -> bool {
    if let syn::Expr::Call(c) = e
        && let syn::Expr::Path(p) = &*c.func
        && p.qself.is_none()
        && let Some(id) = p.path.get_ident()
    {
        return HELPERS.contains(&id.to_string().as_str());
    }
    false
}

fn quote_op(op: &syn::BinOp) -> String {
    {
        use syn::BinOp as B;
        match op {
            B::Add(_) => "+",
            B::Sub(_) => "-",
            B::Mul(_) => "*",
            B::Div(_) => "/",
            B::Rem(_) => "%",
            B::And(_) => "&&",
            B::Or(_) => "||",
            B::BitXor(_) => "^",
            B::BitAnd(_) => "&",
            B::BitOr(_) => "|",
            B::Shl(_) => "<<",
            B::Shr(_) => ">>",
            B::Eq(_) => "==",
            B::Lt(_) => "<",
            B::Le(_) => "<=",
            B::Ne(_) => "!=",
            B::Ge(_) => ">=",
            B::Gt(_) => ">",
            _ => "op=",
        }
        .to_string()
    }
}

fn method_type(name: &str, recv: Ty) -> Ty {
    match name {
        "count_ones" | "count_zeros" | "leading_zeros" | "trailing_zeros" | "leading_ones"
        | "trailing_ones" => Ty::Int("u32"),
        "is_nan" | "is_infinite" | "is_finite" | "is_sign_negative" | "is_sign_positive"
        | "is_power_of_two" => Ty::Bool,
        "to_bits" => match recv {
            Ty::Float("f32") => Ty::Int("u32"),
            Ty::Float("f64") => Ty::Int("u64"),
            _ => Ty::Unknown,
        },
        "wrapping_add" | "wrapping_sub" | "wrapping_mul" | "wrapping_neg" | "wrapping_shl"
        | "wrapping_shr" | "wrapping_div" | "wrapping_rem" | "saturating_add"
        | "saturating_sub" | "saturating_mul" | "rotate_left" | "rotate_right" | "reverse_bits"
        | "swap_bytes" | "abs" | "min" | "max" | "clamp" | "pow" | "sqrt" | "floor" | "ceil"
        | "round" | "trunc" | "fract" | "copysign" | "powi" | "powf" | "mul_add" | "recip"
        | "signum" => recv,
        _ => Ty::Unknown,
    }
}

/// Check every fold of `op`.
pub fn check_op(names: &EnumNames, op: &Op, report: &mut Report) {
    let folds = std::iter::once(&op.fold).chain(op.fold_family.iter().map(|(_, f)| f));
    for fold in folds {
        check_fold(op, fold, &names.0, report);
    }
}

/// [`check_op`] for an op that is not (or not yet) part of a [`Spec`].
pub fn check_op_with(enums: &[Enum], op: &Op, report: &mut Report) {
    check_op(&EnumNames::new(enums), op, report);
}

/// Each enum's Rust type name and variant names, as fold expressions
/// spell them; built once per spec, not per op.
pub struct EnumNames(HashMap<String, Vec<String>>);

impl EnumNames {
    pub fn new(enums: &[Enum]) -> Self {
        EnumNames(
            enums
                .iter()
                .map(|e| {
                    (
                        camel(&e.name),
                        e.values.iter().map(|v| variant(&v.name)).collect(),
                    )
                })
                .collect(),
        )
    }
}

fn base_scope(op: &Op) -> HashMap<String, Binding> {
    let mut s = HashMap::new();
    for src in &op.srcs {
        let t = Ty::of_value(src.ty);
        s.insert(src.name.clone(), Binding::Value(t));
        s.insert(format!("{}_raw", src.name), Binding::Value(t));
        for f in ["neg", "abs", "not"] {
            s.insert(format!("{}_{f}", src.name), Binding::Value(Ty::Bool));
        }
    }
    for m in &op.modifiers {
        let t = match m.ty {
            ModType::Bool => Ty::Bool,
            ModType::Int { signed: false, .. } => Ty::Int("u32"),
            ModType::Int { signed: true, .. } => Ty::Int("i32"),
            ModType::Rel => Ty::Int("i64"),
            ModType::Abs { signed: false } => Ty::Int("u64"),
            ModType::Abs { signed: true } => Ty::Int("i64"),
            ModType::Enum(_) => Ty::Unknown,
        };
        s.insert(m.name.clone(), Binding::Value(t));
    }
    s.insert("sm".into(), Binding::Value(Ty::Int("u32")));
    s
}

/// Check one fold expression that must compute a bool (`refuse`).
fn check_bool_expr(
    fe: &FoldExpr,
    scope: &HashMap<String, Binding>,
    enums: &HashMap<String, Vec<String>>,
    report: &mut Report,
    what: &str,
) {
    let base = fe.loc.span.start as isize;
    match syn::parse_str::<syn::Expr>(&fe.text) {
        Ok(e) => {
            let mut cx = Checker {
                report: &mut *report,
                base,
                end: end_loc(fe),
                file: fe.loc.file,
                scopes: vec![scope.clone()],
                enums: enums.clone(),
                in_let_block: false,
            };
            let t = cx.expr(&e);
            if !t.fits(Ty::Bool) {
                let loc = cx.loc(e.span());
                report.push(
                    Diagnostic::error(Code::S0904, format!("fold `{what}` computes {}", t.name()))
                        .at(loc)
                        .help(format!("`{what}` needs a bool expression")),
                );
            }
        }
        Err(e) => syn_error(report, fe, base, e),
    }
}

fn end_loc(fe: &FoldExpr) -> Loc {
    let e = fe.loc.span.start + fe.text.len();
    Loc {
        file: fe.loc.file,
        span: e..e,
    }
}

fn syn_error(report: &mut Report, fe: &FoldExpr, base: isize, e: syn::Error) {
    for e in e {
        let r = e.span().byte_range();
        let loc = if r.start == 0 && r.end == 0 {
            end_loc(fe)
        } else {
            let s = (base + r.start as isize).max(0) as usize;
            Loc {
                file: fe.loc.file,
                span: s..(base + r.end as isize).max(s as isize) as usize,
            }
        };
        report.push(
            Diagnostic::error(Code::S0901, format!("fold expression does not parse: {e}")).at(loc),
        );
    }
}

/// One op's fold: each expression type-checks in the scope it runs in
/// (conditions see modifiers, `let` adds locals, destinations see all),
/// and the fold gives every destination or none.
fn check_fold(op: &Op, fold: &Fold, enums: &HashMap<String, Vec<String>>, report: &mut Report) {
    if let Some(why) = &fold.inexact {
        check_inexact_alone(fold, why, report);
        return;
    }
    let mut scope = base_scope(op);
    check_fold_conditions(op, fold, &scope, enums, report);
    // The carry read is in scope everywhere after the checks above.
    scope.insert("cc_in".into(), Binding::Value(Ty::Bool));
    if let Some(l) = &fold.lets {
        let Some(bound) = check_lets(l, &scope, enums, report) else {
            return;
        };
        scope.extend(bound);
    }
    if let Some(fe) = &fold.cc_out {
        check_bool_expr(fe, &scope, enums, report, "cc_out");
    }
    for (d, fe) in op.dsts.iter().zip(&fold.dsts) {
        if let Some(fe) = fe {
            check_dst_expr(d, fe, &scope, enums, report);
        }
    }
    check_every_dst_folded(op, fold, report);
}

/// An `inexact` fold says the op never folds: it gives no expression
/// (S0909 at the first one it gives).
fn check_inexact_alone(fold: &Fold, why: &FoldExpr, report: &mut Report) {
    let given = [
        &fold.lets,
        &fold.refuse,
        &fold.reads_cc,
        &fold.writes_cc,
        &fold.cc_out,
    ]
    .into_iter()
    .chain(fold.dsts.iter())
    .flatten()
    .min_by_key(|e| e.loc.span.start);
    if let Some(e) = given {
        report.push(
            Diagnostic::error(
                Code::S0909,
                "a fold marked `inexact` gives no expressions: the op never folds",
            )
            .at(e.loc.clone())
            .also(why.loc.clone(), "marked inexact here"),
        );
    }
}

/// The conditions asked before the fold runs: `refuse` (sources and
/// modifiers), `reads_cc`/`writes_cc` (modifiers only), and S0908 for a
/// `cc_out` no `writes_cc` says when is written.
fn check_fold_conditions(
    op: &Op,
    fold: &Fold,
    scope: &HashMap<String, Binding>,
    enums: &HashMap<String, Vec<String>>,
    report: &mut Report,
) {
    // `refuse` runs before `let`: it sees the sources and modifiers only.
    if let Some(fe) = &fold.refuse {
        check_bool_expr(fe, scope, enums, report, "refuse");
    }
    // `reads_cc`/`writes_cc` are asked without source values: modifiers only.
    let mods_only: HashMap<String, Binding> = scope
        .iter()
        .filter(|(k, _)| op.modifiers.iter().any(|m| &m.name == *k) || k.as_str() == "sm")
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    for (fe, what) in [(&fold.reads_cc, "reads_cc"), (&fold.writes_cc, "writes_cc")] {
        if let Some(fe) = fe {
            check_bool_expr(fe, &mods_only, enums, report, what);
        }
    }
    // `writes_cc` alone says the op writes a carry the fold does not
    // compute (its `refuse` must cover that case).
    if let (None, Some(c)) = (&fold.writes_cc, &fold.cc_out) {
        report.push(
            Diagnostic::error(
                Code::S0908,
                "`cc_out` without `writes_cc`: when is it written?",
            )
            .at(c.loc.clone()),
        );
    }
}

/// The `let` block: its statements check in `scope`, and the locals it
/// binds are returned as values for what follows. `None` (reported) when
/// it does not parse.
fn check_lets(
    l: &FoldExpr,
    scope: &HashMap<String, Binding>,
    enums: &HashMap<String, Vec<String>>,
    report: &mut Report,
) -> Option<HashMap<String, Binding>> {
    let base = l.loc.span.start as isize - 1;
    let b = match syn::parse_str::<syn::Block>(&format!("{{{}}}", l.text)) {
        Ok(b) => b,
        Err(e) => {
            syn_error(report, l, base, e);
            return None;
        }
    };
    let mut cx = Checker {
        report,
        base,
        end: end_loc(l),
        file: l.loc.file,
        scopes: vec![scope.clone(), HashMap::new()],
        enums: enums.clone(),
        in_let_block: true,
    };
    for s in &b.stmts {
        cx.stmt(s, false);
    }
    let bound = cx.scopes.pop().unwrap_or_default();
    Some(
        bound
            .into_iter()
            .map(|(k, v)| match v {
                Binding::Local(t, _) => (k, Binding::Value(t)),
                v => (k, v),
            })
            .collect(),
    )
}

/// S0904: destination `d`'s expression computes a value of its type.
fn check_dst_expr(
    d: &Operand,
    fe: &FoldExpr,
    scope: &HashMap<String, Binding>,
    enums: &HashMap<String, Vec<String>>,
    report: &mut Report,
) {
    let base = fe.loc.span.start as isize;
    let e = match syn::parse_str::<syn::Expr>(&fe.text) {
        Ok(e) => e,
        Err(e) => return syn_error(report, fe, base, e),
    };
    let mut cx = Checker {
        report: &mut *report,
        base,
        end: end_loc(fe),
        file: fe.loc.file,
        scopes: vec![scope.clone()],
        enums: enums.clone(),
        in_let_block: false,
    };
    let t = cx.expr(&e);
    let want = Ty::of_value(d.ty);
    if t.fits(want) {
        return;
    }
    let loc = cx.loc(e.span());
    report.push(
        Diagnostic::error(
            Code::S0904,
            format!(
                "fold for `{}` ({}) computes {}",
                d.name,
                d.ty.name(),
                t.name()
            ),
        )
        .at(loc)
        .help(match want {
            Ty::Bool => "a predicate destination needs a bool expression".to_string(),
            _ => format!("cast it: `(...) as {}`", want.name()),
        }),
    );
}

/// S0907: a fold with expressions for some destinations but not all
/// never folds, which is likely a mistake.
fn check_every_dst_folded(op: &Op, fold: &Fold, report: &mut Report) {
    let missing: Vec<&str> = op
        .dsts
        .iter()
        .zip(&fold.dsts)
        .filter(|(d, f)| f.is_none() && !d.unknown)
        .map(|(d, _)| d.name.as_str())
        .collect();
    let known = op.dsts.iter().filter(|d| !d.unknown).count();
    if missing.is_empty() || missing.len() >= known {
        return;
    }
    let at = fold.dsts.iter().flatten().next().map(|f| f.loc.clone());
    report.push(
        Diagnostic::warning(
            Code::S0907,
            format!(
                "the fold of `{}` has no expression for {}",
                op.name,
                missing
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .at_opt(at)
        .help("the op folds only when every destination has an expression"),
    );
}

/// Why a construct outside the fold subset is refused (S0903).
fn not_in_subset(e: &syn::Expr) -> &'static str {
    use syn::Expr as E;
    match e {
        E::Closure(_) => {
            "closures are allowed only as the initializer of a `let` in the `let` block"
        }
        E::Macro(_) => "macros are not allowed in folds",
        E::Loop(_) | E::While(_) | E::ForLoop(_) => "loops are not allowed in folds",
        E::Unsafe(_) => "`unsafe` is not allowed in folds",
        E::Let(_) => "`let` expressions (`if let`) are not allowed in folds; use `match`",
        _ => "this construct is not allowed in folds (see the fold subset in isa-spec/README.md)",
    }
}
