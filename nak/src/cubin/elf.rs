//! The parts of a cubin (an NVIDIA ELF file) a listing needs, read with
//! the `object` crate: the SM from the header flags, the code sections,
//! the symbols and each kernel's `.nv.info` attributes.

use object::LittleEndian as LE;
use object::elf::{self, FileHeader64};
use object::read::elf::{FileHeader, SectionHeader, Sym};

/// `e_ident[EI_ABIVERSION]` from which the SM moved to bits 8..16 of
/// `e_flags` (ptxas 13; before, it was the low byte).
const ABI_V2: u8 = 8;

/// One code section (`.text.NAME`).
pub struct TextSection<'a> {
    pub index: usize,
    pub name: String,
    pub data: &'a [u8],
    /// Where `data` starts in the file (what a patch overwrites).
    pub offset: u64,
    pub align: u64,
    /// `sh_info`: its top byte is the register count (ptxas, up to SM89).
    pub info: u32,
}

/// One symbol of the symbol table, in table order.
pub struct Symbol {
    pub name: String,
    pub value: u64,
    pub size: u64,
    /// `STT_*`, `STB_*`, `st_other` and the section index (0: undefined).
    pub kind: u8,
    pub bind: u8,
    pub other: u8,
    pub section: usize,
}

/// A relocation of a code section: the linker writes the address of
/// `symbol` (plus `addend`) into the instruction at `offset`.
pub struct Reloc {
    pub section: usize,
    pub offset: u64,
    pub symbol: String,
    pub addend: i64,
}

/// A whole cubin as a listing reads it.
pub struct Cubin<'a> {
    pub sm: u32,
    pub flags: u32,
    /// ABI v2 files (ptxas 13) keep the SM in bits 8..16 of the flags.
    pub abi_v2: bool,
    pub elf_type: u16,
    pub texts: Vec<TextSection<'a>>,
    pub symbols: Vec<Symbol>,
    /// `.nv.info.NAME` section data by kernel name.
    pub infos: Vec<(String, &'a [u8])>,
    pub relocs: Vec<Reloc>,
}

impl<'a> Cubin<'a> {
    /// Parse the ELF file; every error says what is wrong with the file.
    pub fn parse(data: &'a [u8]) -> Result<Cubin<'a>, String> {
        let bad = |e: object::read::Error| format!("not a readable cubin: {e}");
        let header = FileHeader64::<LE>::parse(data).map_err(bad)?;
        let endian = header.endian().map_err(bad)?;
        let abi_v2 = header.e_ident().abi_version >= ABI_V2;
        let flags = header.e_flags(endian);
        let sm = if abi_v2 {
            (flags >> 8) & 0xff
        } else {
            flags & 0xff
        };
        let sections = header.sections(endian, data).map_err(bad)?;
        let mut texts = Vec::new();
        let mut infos = Vec::new();
        // (section, offset, symbol index, addend)
        let mut raw_relocs: Vec<(usize, u64, u32, i64)> = Vec::new();
        for (index, sh) in sections.enumerate() {
            let name = sections.section_name(endian, sh).map_err(bad)?;
            let name = String::from_utf8_lossy(name).into_owned();
            let target = sh.sh_info(endian) as usize;
            let past = |_| format!("relocation section {name} runs past the end of the file");
            if let Some((rels, _)) = sh.rel(endian, data).map_err(past)? {
                raw_relocs.extend(
                    rels.iter()
                        .map(|r| (target, r.r_offset.get(endian), r.r_sym(endian), 0)),
                );
            }
            if let Some((relas, _)) = sh.rela(endian, data).map_err(past)? {
                raw_relocs.extend(relas.iter().map(|r| {
                    (
                        target,
                        r.r_offset.get(endian),
                        r.r_sym(endian, false),
                        r.r_addend.get(endian),
                    )
                }));
            }
            if sh.sh_type(endian) == elf::SHT_NOBITS {
                continue;
            }
            let is_text = name.starts_with(".text.");
            let is_info = name.starts_with(".nv.info.");
            if !is_text && !is_info {
                continue;
            }
            let bytes = sh.data(endian, data).map_err(|_| {
                format!(
                    "section {name}: offset {:#x} and size {:#x} run past the end of the file ({:#x} bytes)",
                    sh.sh_offset(endian),
                    sh.sh_size(endian),
                    data.len()
                )
            })?;
            if is_text {
                texts.push(TextSection {
                    index: index.0,
                    name,
                    data: bytes,
                    offset: sh.sh_offset(endian),
                    align: sh.sh_addralign(endian),
                    info: sh.sh_info(endian),
                });
            } else {
                infos.push((name[".nv.info.".len()..].to_string(), bytes));
            }
        }
        let mut symbols = Vec::new();
        let table = sections
            .symbols(endian, data, elf::SHT_SYMTAB)
            .map_err(bad)?;
        for sym in table.iter() {
            let name = table.symbol_name(endian, sym).map_err(bad)?;
            symbols.push(Symbol {
                name: String::from_utf8_lossy(name).into_owned(),
                value: sym.st_value(endian),
                size: sym.st_size(endian),
                kind: sym.st_type(),
                bind: sym.st_bind(),
                other: sym.st_other(),
                section: usize::from(sym.st_shndx(endian)),
            });
        }
        let relocs = raw_relocs
            .into_iter()
            .filter_map(|(section, offset, sym, addend)| {
                let symbol = symbols.get(sym as usize)?.name.clone();
                Some(Reloc {
                    section,
                    offset,
                    symbol,
                    addend,
                })
            })
            .collect();
        Ok(Cubin {
            relocs,
            sm,
            flags,
            abi_v2,
            elf_type: header.e_type(endian),
            texts,
            symbols,
            infos,
        })
    }

    /// The functions (`STT_FUNC`) defined in section `index`.
    pub fn functions_in(&self, index: usize) -> impl Iterator<Item = &Symbol> {
        self.symbols
            .iter()
            .filter(move |s| s.kind == elf::STT_FUNC && s.section == index)
    }

    /// The `.nv.info.NAME` data of the kernel whose code is `.text.NAME`.
    pub fn info_of(&self, text: &TextSection) -> &'a [u8] {
        let kernel = &text.name[".text.".len()..];
        self.infos
            .iter()
            .find(|(n, _)| n == kernel)
            .map_or(&[], |(_, d)| d)
    }
}
