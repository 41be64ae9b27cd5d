//! The data arrays of a VTK XML file in one of three encodings, [`FrameEncoding`]: ASCII text
//! inside each `DataArray`, or binary in the file's `AppendedData` section, raw or compressed
//! with zlib.
//!
//! It implements VTK's XML file formats (file version 1.0, "VTK File Formats" in the VTK
//! documentation): `byte_order="LittleEndian"` and `header_type="UInt64"` on the `VTKFile`
//! element; binary arrays as `format="appended"` with an `offset` counted from the first byte
//! after the `_` that opens `<AppendedData encoding="raw">`. Uncompressed, an array there is one
//! UInt64, its size in bytes, then its values in little-endian order. With
//! `compressor="vtkZLibDataCompressor"`, its values are cut into blocks of [`ZLIB_BLOCK`] bytes
//! (the last one may be shorter), each compressed alone as a zlib stream, and the array is the
//! header `[number of blocks, block size, size of the last block if partial else 0, compressed
//! size of each block]` (UInt64 each), then the compressed blocks in order.
//!
//! A data set written in pieces (one per rank of a distributed run) has a parallel file beside
//! them (`.pvtu`, `.pvtp`: VTK's `PUnstructuredGrid` and `PPolyData`), which declares the
//! pieces' arrays and names the piece files; [`VtkXml::parallel`] writes it from the same calls
//! that write a piece, so the two cannot disagree.

use flate2::write::ZlibEncoder;
use flate2::Compression;
use std::fmt::Write as _;
use std::io::Write as _;

/// How the data arrays of ParaView frames are stored (`[output] frame_encoding`).
///
/// zlib is the default: a frame of spheres in motion takes 33 bytes a grain against raw
/// binary's 55 (docs/benchmark.md), for about 1.4 s against 0.25 s of the writer thread per
/// million grains on a loaded 2-core machine, under 1 % of the 100 steps between frames at
/// that size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FrameEncoding {
    /// Binary values in the appended section, uncompressed (`"binary"`): the fastest to write
    /// and to read.
    Binary,
    /// Binary values in the appended section, compressed with zlib in blocks (`"zlib"`, the
    /// default).
    #[default]
    Zlib,
    /// Decimal text in each array (`"ascii"`): the largest and slowest to write, readable by eye.
    Ascii,
}

impl FrameEncoding {
    /// Every encoding, in the order the scene key's error lists them.
    pub const ALL: [FrameEncoding; 3] = [
        FrameEncoding::Binary,
        FrameEncoding::Zlib,
        FrameEncoding::Ascii,
    ];

    /// The encoding's name in scene files and Python (`"binary"`, `"zlib"`, `"ascii"`).
    pub fn name(self) -> &'static str {
        match self {
            FrameEncoding::Binary => "binary",
            FrameEncoding::Zlib => "zlib",
            FrameEncoding::Ascii => "ascii",
        }
    }

    /// The encoding named `name`, if any.
    pub fn from_name(name: &str) -> Option<FrameEncoding> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }
}

/// Uncompressed size of a zlib block (bytes): VTK's own default.
pub const ZLIB_BLOCK: usize = 1 << 15;

/// The zlib level: 1, the fastest. Frames are mostly floats, on which the default level 6 saves
/// 0.3 % more for 5 times the time (measured on the frames of a million grains with their
/// orientations: 47.9 against 48.1 bytes a grain, 3.4 s against 0.65 s).
const ZLIB_LEVEL: u32 = 1;

/// A value type of a VTK data array.
pub trait Element: Copy {
    /// Its VTK type name (`Float32`, `Int32`, …).
    const TYPE: &'static str;
    /// Appends the value as decimal text.
    fn text(self, s: &mut String);
    /// Appends the value's little-endian bytes.
    fn bytes(self, b: &mut Vec<u8>);
}

macro_rules! element {
    ($t:ty, $name:literal) => {
        impl Element for $t {
            const TYPE: &'static str = $name;
            fn text(self, s: &mut String) {
                // Display: the shortest text that reads back to the same value.
                let _ = write!(s, "{self}");
            }
            fn bytes(self, b: &mut Vec<u8>) {
                b.extend_from_slice(&self.to_le_bytes());
            }
        }
    };
}
element!(f32, "Float32");
element!(f64, "Float64");
element!(i8, "Int8");
element!(i16, "Int16");
element!(i32, "Int32");
element!(i64, "Int64");
element!(u8, "UInt8");
element!(u16, "UInt16");
element!(u32, "UInt32");
element!(u64, "UInt64");

/// A VTK XML file being written: the XML text and, for the binary encodings, the appended
/// section's bytes. [`VtkXml::finish`] joins them.
pub struct VtkXml {
    encoding: FrameEncoding,
    /// The data set's element name (`UnstructuredGrid`, `PolyData`), closed by `finish`.
    kind: &'static str,
    xml: String,
    appended: Vec<u8>,
    /// One array's values before compression (zlib only).
    scratch: Vec<u8>,
    /// The parallel file of a data set written in pieces ([`VtkXml::parallel`]).
    parallel: bool,
}

impl VtkXml {
    /// Starts a file holding a data set of type `kind` (`"UnstructuredGrid"`, `"PolyData"`),
    /// its arrays in `encoding`; `values` is about how many values its arrays hold in all, to
    /// size the buffers.
    pub fn new(kind: &'static str, encoding: FrameEncoding, values: usize) -> VtkXml {
        VtkXml::with_attributes(kind, "", encoding, values)
    }

    /// [`VtkXml::new`] with `attributes` on the data set's element (an `ImageData`'s
    /// `WholeExtent`, `Origin` and `Spacing`; each with a leading space).
    pub fn with_attributes(
        kind: &'static str,
        attributes: &str,
        encoding: FrameEncoding,
        values: usize,
    ) -> VtkXml {
        let mut xml = String::with_capacity(match encoding {
            FrameEncoding::Ascii => 12 * values + 1024,
            _ => 4096,
        });
        xml.push_str("<?xml version=\"1.0\"?>\n");
        let _ = write!(
            xml,
            "<VTKFile type=\"{kind}\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\""
        );
        if encoding == FrameEncoding::Zlib {
            xml.push_str(" compressor=\"vtkZLibDataCompressor\"");
        }
        let _ = write!(xml, ">\n<{kind}{attributes}>\n");
        let appended = match encoding {
            FrameEncoding::Binary => Vec::with_capacity(4 * values + 1024),
            FrameEncoding::Zlib => Vec::with_capacity(2 * values + 1024),
            FrameEncoding::Ascii => Vec::new(),
        };
        VtkXml {
            encoding,
            kind,
            xml,
            appended,
            scratch: Vec::new(),
            parallel: false,
        }
    }

    /// Starts the parallel file (`.pvtu` for `kind` `"UnstructuredGrid"`, `.pvtp` for
    /// `"PolyData"`) of a data set written in pieces, one file each: the same calls that write
    /// a piece declare here what every piece holds, each array by its name, type and
    /// components without values (`PDataArray`), inside the parallel forms of the piece's
    /// elements (`PPoints`, `PCells`, `PPointData`, …); the piece's own element and its field
    /// data are left out. [`VtkXml::pieces`] then names the piece files.
    pub fn parallel(kind: &'static str) -> VtkXml {
        let mut xml = String::from("<?xml version=\"1.0\"?>\n");
        let _ = write!(
            xml,
            "<VTKFile type=\"P{kind}\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n<P{kind} GhostLevel=\"0\">\n"
        );
        VtkXml {
            encoding: FrameEncoding::Ascii,
            kind,
            xml,
            appended: Vec::new(),
            scratch: Vec::new(),
            parallel: true,
        }
    }

    /// Names the piece files of a parallel file, relative to its folder.
    pub fn pieces(&mut self, sources: &[String]) {
        for source in sources {
            let _ = writeln!(self.xml, "<Piece Source=\"{source}\"/>");
        }
    }

    /// Appends XML text as it is (an element's opening or closing tag, one a line). In a
    /// parallel file each element takes its parallel name (`<Points>` → `<PPoints>`), and
    /// `Piece` and `FieldData` are left out.
    pub fn tag(&mut self, text: &str) {
        if !self.parallel {
            self.xml.push_str(text);
            self.xml.push('\n');
            return;
        }
        for line in text.lines() {
            let closing = line.starts_with("</");
            let name = line.trim_start_matches(['<', '/']);
            if name.starts_with("Piece") || name.starts_with("FieldData") {
                continue;
            }
            self.xml.push_str(if closing { "</P" } else { "<P" });
            self.xml.push_str(name);
            self.xml.push('\n');
        }
    }

    /// A data array named `name` (none: the unnamed `Points` array) of `C`-component tuples.
    pub fn array<T: Element, const C: usize>(
        &mut self,
        name: Option<&str>,
        tuples: impl IntoIterator<Item = [T; C]>,
    ) {
        let mut attrs = String::new();
        if let Some(name) = name {
            let _ = write!(attrs, " Name=\"{name}\"");
        }
        if C > 1 {
            let _ = write!(attrs, " NumberOfComponents=\"{C}\"");
        }
        self.data::<T, C>(&attrs, tuples);
    }

    /// A field data array of one value (as the `TimeValue` ParaView reads a frame's time from).
    pub fn field<T: Element>(&mut self, name: &str, value: T) {
        if self.parallel {
            return;
        }
        self.data::<T, 1>(&format!(" Name=\"{name}\" NumberOfTuples=\"1\""), [[value]]);
    }

    /// Indices (cell connectivity or offsets) as Int32 when `max`, the largest, fits in one,
    /// else as Int64.
    pub fn indices(&mut self, name: &str, max: usize, values: impl IntoIterator<Item = usize>) {
        if i32::try_from(max).is_ok() {
            self.array(Some(name), values.into_iter().map(|v| [v as i32]));
        } else {
            self.array(Some(name), values.into_iter().map(|v| [v as i64]));
        }
    }

    /// Unsigned integers as the narrowest of UInt8, UInt16, UInt32 and UInt64 that holds
    /// `max`, an upper bound of the values (which every piece of a frame must share, so that
    /// each writes the same type). A value above `max` is clamped to it, never wrapped.
    pub fn unsigned(&mut self, name: &str, max: u64, values: impl IntoIterator<Item = u64>) {
        let values = values.into_iter().map(|v| v.min(max));
        if max <= u8::MAX as u64 {
            self.array(Some(name), values.map(|v| [v as u8]));
        } else if max <= u16::MAX as u64 {
            self.array(Some(name), values.map(|v| [v as u16]));
        } else if max <= u32::MAX as u64 {
            self.array(Some(name), values.map(|v| [v as u32]));
        } else {
            self.array(Some(name), values.map(|v| [v]));
        }
    }

    /// Integers from −1 to `max` as the narrowest of Int8, Int16 and Int32 that holds `max`
    /// (likewise shared by the pieces of a frame); values outside are clamped into the range.
    pub fn small_signed(&mut self, name: &str, max: i32, values: impl IntoIterator<Item = i32>) {
        let max = max.max(0);
        let values = values.into_iter().map(|v| v.clamp(-1, max));
        if max <= i8::MAX as i32 {
            self.array(Some(name), values.map(|v| [v as i8]));
        } else if max <= i16::MAX as i32 {
            self.array(Some(name), values.map(|v| [v as i16]));
        } else {
            self.array(Some(name), values.map(|v| [v]));
        }
    }

    fn data<T: Element, const C: usize>(
        &mut self,
        attrs: &str,
        tuples: impl IntoIterator<Item = [T; C]>,
    ) {
        let ty = T::TYPE;
        if self.parallel {
            let _ = writeln!(self.xml, "<PDataArray type=\"{ty}\"{attrs}/>");
            return;
        }
        match self.encoding {
            FrameEncoding::Ascii => {
                let _ = writeln!(
                    self.xml,
                    "<DataArray type=\"{ty}\"{attrs} format=\"ascii\">"
                );
                for t in tuples {
                    for (k, v) in t.into_iter().enumerate() {
                        if k > 0 {
                            self.xml.push(' ');
                        }
                        v.text(&mut self.xml);
                    }
                    self.xml.push('\n');
                }
                self.xml.push_str("</DataArray>\n");
            }
            FrameEncoding::Binary => {
                let offset = self.appended.len();
                let _ = writeln!(
                    self.xml,
                    "<DataArray type=\"{ty}\"{attrs} format=\"appended\" offset=\"{offset}\"/>"
                );
                // The size first as a placeholder, filled in once the values are in.
                self.appended.extend_from_slice(&[0; 8]);
                for t in tuples {
                    for v in t {
                        v.bytes(&mut self.appended);
                    }
                }
                let size = (self.appended.len() - offset - 8) as u64;
                self.appended[offset..offset + 8].copy_from_slice(&size.to_le_bytes());
            }
            FrameEncoding::Zlib => {
                let offset = self.appended.len();
                let _ = writeln!(
                    self.xml,
                    "<DataArray type=\"{ty}\"{attrs} format=\"appended\" offset=\"{offset}\"/>"
                );
                self.scratch.clear();
                for t in tuples {
                    for v in t {
                        v.bytes(&mut self.scratch);
                    }
                }
                compress_blocks(&self.scratch, &mut self.appended);
            }
        }
    }

    /// The whole file: the XML closed and, for the binary encodings, the appended section.
    pub fn finish(mut self) -> Vec<u8> {
        let p = if self.parallel { "P" } else { "" };
        let _ = writeln!(self.xml, "</{p}{}>", self.kind);
        if self.encoding == FrameEncoding::Ascii {
            self.xml.push_str("</VTKFile>\n");
            return self.xml.into_bytes();
        }
        self.xml.push_str("<AppendedData encoding=\"raw\">\n_");
        let mut out = self.xml.into_bytes();
        out.reserve(self.appended.len() + 32);
        out.extend_from_slice(&self.appended);
        out.extend_from_slice(b"\n</AppendedData>\n</VTKFile>\n");
        out
    }
}

/// Appends `values` to `out` as one zlib-compressed array of VTK's block layout (the module's
/// header).
fn compress_blocks(values: &[u8], out: &mut Vec<u8>) {
    let blocks = values.len().div_ceil(ZLIB_BLOCK);
    let last = values.len() % ZLIB_BLOCK;
    let header = out.len();
    for v in [blocks, ZLIB_BLOCK, last] {
        out.extend_from_slice(&(v as u64).to_le_bytes());
    }
    // The compressed sizes, filled in as the blocks are written after them.
    out.resize(header + 8 * (3 + blocks), 0);
    for (k, block) in values.chunks(ZLIB_BLOCK).enumerate() {
        let start = out.len();
        let mut z = ZlibEncoder::new(std::mem::take(out), Compression::new(ZLIB_LEVEL));
        let written = z.write_all(block).and_then(|()| z.finish());
        *out = written.expect("compressing into memory does not fail");
        let size = (out.len() - start) as u64;
        let at = header + 8 * (3 + k);
        out[at..at + 8].copy_from_slice(&size.to_le_bytes());
    }
}
