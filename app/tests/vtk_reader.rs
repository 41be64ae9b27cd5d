//! A small reader of the VTK XML files the outputs write, for the tests: the `VTKFile`
//! element's attributes, then every `DataArray` in file order with its values as
//! little-endian bytes, whether they were written as ASCII text, raw appended binary or
//! zlib-compressed appended blocks (VTK's block header: count, block size, last partial size,
//! compressed sizes, all UInt64). It checks what it reads: the appended arrays must tile the
//! appended section from its first byte to its last, in file order, and decompress to the size
//! their headers give.

use std::io::Read;

/// One data array as read.
#[derive(Debug)]
pub struct Array {
    /// Its `Name`, or the element it lies in (`Points`) when it has none.
    pub name: String,
    /// Its VTK type (`Float32`, …).
    pub ty: String,
    /// `NumberOfComponents` (1 when absent).
    pub components: usize,
    /// The values' little-endian bytes.
    pub bytes: Vec<u8>,
}

/// A file as read: the `VTKFile` element's attributes and the arrays.
#[derive(Debug)]
pub struct VtkFile {
    /// The text of the `<VTKFile …>` tag.
    pub root: String,
    /// The text of the `<Piece …>` tag.
    pub piece: String,
    /// Every data array, in file order.
    pub arrays: Vec<Array>,
}

impl VtkFile {
    /// The array named `name`; panics when there is none.
    pub fn array(&self, name: &str) -> &Array {
        self.arrays
            .iter()
            .find(|a| a.name == name)
            .unwrap_or_else(|| panic!("no array {name}"))
    }
}

/// The value of attribute `name` in the tag text `tag`.
pub fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let len = tag[start..].find('"')?;
    Some(&tag[start..start + len])
}

/// The size of one value of VTK type `ty`.
fn size_of(ty: &str) -> usize {
    match ty {
        "Float32" | "Int32" | "UInt32" => 4,
        "Float64" | "Int64" | "UInt64" => 8,
        "Int16" | "UInt16" => 2,
        "Int8" | "UInt8" => 1,
        other => panic!("unexpected type {other}"),
    }
}

/// The little-endian bytes of the ASCII values `text` of type `ty`.
fn parse_ascii(ty: &str, text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for w in text.split_whitespace() {
        fn parsed<T: std::str::FromStr>(w: &str, ty: &str) -> T {
            w.parse().unwrap_or_else(|_| panic!("{w:?} is not a {ty}"))
        }
        match ty {
            "Float32" => out.extend(parsed::<f32>(w, ty).to_le_bytes()),
            "Float64" => out.extend(parsed::<f64>(w, ty).to_le_bytes()),
            "Int32" => out.extend(parsed::<i32>(w, ty).to_le_bytes()),
            "Int64" => out.extend(parsed::<i64>(w, ty).to_le_bytes()),
            "UInt64" => out.extend(parsed::<u64>(w, ty).to_le_bytes()),
            "UInt32" => out.extend(parsed::<u32>(w, ty).to_le_bytes()),
            "UInt16" => out.extend(parsed::<u16>(w, ty).to_le_bytes()),
            "Int16" => out.extend(parsed::<i16>(w, ty).to_le_bytes()),
            "Int8" => out.extend(parsed::<i8>(w, ty).to_le_bytes()),
            "UInt8" => out.extend(parsed::<u8>(w, ty).to_le_bytes()),
            other => panic!("unexpected type {other}"),
        }
    }
    out
}

fn u64_at(b: &[u8], at: usize) -> usize {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize
}

/// One appended array starting at `b[0]`: its values and the bytes it takes.
fn appended_array(b: &[u8], zlib: bool) -> (Vec<u8>, usize) {
    if !zlib {
        let n = u64_at(b, 0);
        return (b[8..8 + n].to_vec(), 8 + n);
    }
    let (blocks, block, last) = (u64_at(b, 0), u64_at(b, 8), u64_at(b, 16));
    let mut at = 8 * (3 + blocks);
    let mut out = Vec::new();
    for k in 0..blocks {
        let c = u64_at(b, 8 * (3 + k));
        let mut z = flate2::read::ZlibDecoder::new(&b[at..at + c]);
        let mut plain = Vec::new();
        z.read_to_end(&mut plain).expect("a zlib block");
        let want = if k + 1 == blocks && last != 0 {
            last
        } else {
            block
        };
        assert_eq!(plain.len(), want, "block {k} of {blocks} decompressed");
        out.extend(plain);
        at += c;
    }
    (out, at)
}

/// Reads the VTK XML file `bytes`.
pub fn read(bytes: &[u8]) -> VtkFile {
    const MARK: &[u8] = b"<AppendedData encoding=\"raw\">\n_";
    let (head, appended) = match bytes.windows(MARK.len()).position(|w| w == MARK) {
        Some(p) => {
            let data = &bytes[p + MARK.len()..];
            let end = b"\n</AppendedData>\n</VTKFile>\n";
            assert!(data.ends_with(end), "the appended section is closed");
            (&bytes[..p], Some(&data[..data.len() - end.len()]))
        }
        None => (bytes, None),
    };
    let head = std::str::from_utf8(head).expect("the XML part is text");
    let tag = |name: &str| -> String {
        let start = head
            .find(&format!("<{name} "))
            .unwrap_or_else(|| panic!("no <{name}>"));
        head[start..start + head[start..].find('>').unwrap() + 1].to_string()
    };
    let root = tag("VTKFile");
    let piece = tag("Piece");
    if appended.is_some() {
        assert_eq!(attr(&root, "header_type"), Some("UInt64"), "{root}");
        assert_eq!(attr(&root, "byte_order"), Some("LittleEndian"), "{root}");
    }
    let zlib = match attr(&root, "compressor") {
        None => false,
        Some("vtkZLibDataCompressor") => true,
        Some(other) => panic!("unexpected compressor {other}"),
    };
    let mut arrays = Vec::new();
    let mut used = 0;
    let mut rest = head;
    while let Some(p) = rest.find("<DataArray ") {
        // The element the array lies in: the last tag opened before it that is not a DataArray.
        let before = &rest[..p];
        let section = before
            .rfind("\n<")
            .map(|q| &before[q + 2..])
            .and_then(|s| s.split(['>', ' ']).next())
            .unwrap_or("");
        let end = p + rest[p..].find('>').unwrap() + 1;
        let t = &rest[p..end];
        let ty = attr(t, "type").expect("a type").to_string();
        let name = attr(t, "Name").map_or(section.to_string(), str::to_string);
        let components = attr(t, "NumberOfComponents").map_or(1, |c| c.parse().unwrap());
        let format = attr(t, "format").expect("a format");
        let bytes = match format {
            "ascii" => {
                let close = rest[end..].find("</DataArray>").unwrap();
                let text = &rest[end..end + close];
                rest = &rest[end + close..];
                parse_ascii(&ty, text)
            }
            "appended" => {
                let data = appended.expect("an appended section");
                let offset: usize = attr(t, "offset").expect("an offset").parse().unwrap();
                assert_eq!(offset, used, "{name}: the arrays follow one another");
                let (values, taken) = appended_array(&data[offset..], zlib);
                used += taken;
                rest = &rest[end..];
                values
            }
            other => panic!("unexpected format {other}"),
        };
        assert_eq!(
            bytes.len() % (size_of(&ty) * components),
            0,
            "{name}: whole tuples"
        );
        arrays.push(Array {
            name,
            ty,
            components,
            bytes,
        });
    }
    if let Some(data) = appended {
        assert_eq!(used, data.len(), "the arrays fill the appended section");
    }
    VtkFile {
        root,
        piece,
        arrays,
    }
}
