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

use flate2::write::ZlibEncoder;
use flate2::Compression;
use std::fmt::Write as _;
use std::io::Write as _;

/// How the data arrays of ParaView frames are stored (`[output] frame_encoding`).
///
/// zlib is the default: a frame of grains in motion takes 48 bytes a grain against raw
/// binary's 81, for about 0.65 s against 0.12 s of the writer thread per million grains
/// (docs/benchmark.md), well under 1 % of the 100 steps between frames at that size.
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
/// 0.3 % more for 5 times the time (a million grains: 47.9 against 48.1 bytes a grain, 3.4 s
/// against 0.65 s).
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
element!(i32, "Int32");
element!(i64, "Int64");
element!(u8, "UInt8");
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
}

impl VtkXml {
    /// Starts a file holding a data set of type `kind` (`"UnstructuredGrid"`, `"PolyData"`),
    /// its arrays in `encoding`; `values` is about how many values its arrays hold in all, to
    /// size the buffers.
    pub fn new(kind: &'static str, encoding: FrameEncoding, values: usize) -> VtkXml {
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
        let _ = write!(xml, ">\n<{kind}>\n");
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
        }
    }

    /// Appends XML text as it is (an element's opening or closing tag).
    pub fn tag(&mut self, text: &str) {
        self.xml.push_str(text);
        self.xml.push('\n');
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

    fn data<T: Element, const C: usize>(
        &mut self,
        attrs: &str,
        tuples: impl IntoIterator<Item = [T; C]>,
    ) {
        let ty = T::TYPE;
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
        let _ = writeln!(self.xml, "</{}>", self.kind);
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
