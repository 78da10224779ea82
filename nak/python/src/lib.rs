//! `nak` for Python: disassembly and assembly in the caller's process,
//! instead of a subprocess per file. The instructions have the fields of
//! `nak dis --json` (see the README), from the same
//! `nak::dis::instruction`.
//!
//! ```python
//! import nak
//! for i in nak.disassemble(open("kernel.cubin", "rb").read()):
//!     print(i.kernel, hex(i.addr), i.text)
//! ```

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// One operand as printed, and the kind of thing it names (`register`,
/// `uniform_register`, `predicate`, `uniform_predicate`, `barrier`,
/// `immediate`, `constant`, `memory`, `attribute`, `descriptor`, `name`).
#[pyclass(frozen, get_all, module = "nak")]
#[derive(Clone)]
struct Operand {
    kind: String,
    text: String,
}

#[pymethods]
impl Operand {
    fn __repr__(&self) -> String {
        format!("Operand(kind='{}', text='{}')", self.kind, self.text)
    }
}

/// An instruction's scheduling control bits. `yield_` is the JSON's
/// `yield` (a Python keyword): the `Y` of `nak dis --ctrl`.
#[pyclass(frozen, get_all, module = "nak")]
#[derive(Clone)]
struct Control {
    stall: u32,
    yield_: bool,
    write_barrier: Option<u8>,
    read_barrier: Option<u8>,
    /// A list of ints (a `Vec<u8>` would reach Python as `bytes`).
    wait: Vec<u32>,
    raw: u32,
    text: String,
}

#[pymethods]
impl Control {
    fn __repr__(&self) -> String {
        format!("Control({})", self.text)
    }
}

/// One instruction of a cubin's kernel or of a raw stream.
#[pyclass(frozen, get_all, module = "nak")]
struct Instruction {
    kernel: Option<String>,
    addr: u64,
    words: Vec<String>,
    text: Option<String>,
    guard: Option<String>,
    mnemonic: String,
    modifiers: Vec<String>,
    operands: Vec<Operand>,
    control: Control,
}

#[pymethods]
impl Instruction {
    fn __repr__(&self) -> String {
        let text = self.text.as_deref().unwrap_or("<unknown>");
        match &self.kernel {
            Some(k) => format!("Instruction({k} {:#06x}: {text})", self.addr),
            None => format!("Instruction({:#06x}: {text})", self.addr),
        }
    }
}

impl From<nak::dis::instruction::Instruction> for Instruction {
    fn from(i: nak::dis::instruction::Instruction) -> Self {
        let c = i.control;
        Instruction {
            kernel: i.kernel,
            addr: i.addr,
            words: i.words,
            text: i.text,
            guard: i.guard,
            mnemonic: i.mnemonic,
            modifiers: i.modifiers,
            operands: i
                .operands
                .into_iter()
                .map(|o| Operand {
                    kind: o.kind.to_string(),
                    text: o.text,
                })
                .collect(),
            control: Control {
                stall: c.stall,
                yield_: c.yield_hint,
                write_barrier: c.write_barrier,
                read_barrier: c.read_barrier,
                wait: c.wait.into_iter().map(u32::from).collect(),
                raw: c.raw,
                text: c.text,
            },
        }
    }
}

/// Every instruction of `data`: a cubin's kernels (its SM from the ELF
/// header; `sm`, when given, must agree), or a raw stream on `sm`.
/// Raises ValueError on bad input.
#[pyfunction]
#[pyo3(signature = (data, sm=None))]
fn disassemble(data: &[u8], sm: Option<u32>) -> PyResult<Vec<Instruction>> {
    if let Some(sm) = sm {
        check_sm(sm)?;
    }
    let all = nak::dis::instruction::instructions(data, sm).map_err(PyValueError::new_err)?;
    Ok(all.into_iter().map(Instruction::from).collect())
}

/// Assemble one instruction per line (as `nak asm` reads them) into a raw
/// stream on `sm`. Raises ValueError naming each bad line.
#[pyfunction]
fn assemble<'py>(py: Python<'py>, text: &str, sm: u32) -> PyResult<Bound<'py, PyBytes>> {
    check_sm(sm)?;
    match nak::dis::listing::assemble(sm, text) {
        Ok(a) => Ok(PyBytes::new(py, &a.bytes)),
        Err(errs) => {
            let lines: Vec<String> = errs
                .iter()
                .map(|e| format!("line {}:{}: {}", e.line, e.col, e.message))
                .collect();
            Err(PyValueError::new_err(lines.join("\n")))
        }
    }
}

/// `sm` is an SM the spec covers.
fn check_sm(sm: u32) -> PyResult<()> {
    match nak::isa::family_of(sm) {
        Some(_) => Ok(()),
        None => Err(PyValueError::new_err(format!(
            "SM{sm} is not covered; supported: {:?}",
            nak::isa::ALL_SMS
        ))),
    }
}

/// NVIDIA SASS disassembly and assembly generated from the nak ISA spec.
#[pymodule(name = "nak")]
mod nak_module {
    #[pymodule_export]
    use super::{Control, Instruction, Operand, assemble, disassemble};
}
