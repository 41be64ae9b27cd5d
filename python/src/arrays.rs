//! NumPy in and out: checked reading of the arrays a user passes (shape, dtype, finite values,
//! each error naming the argument), and read-only views of the engine's buffers.

use grains::fluid::FlowField;
use grains::Vec3;
use numpy::ndarray::{ArrayView, Dimension, ShapeBuilder};
use numpy::{PyArray, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// Reads `obj` (an array or anything `numpy.asarray` takes) as rows of `width` floats: shape
/// (n, width). float64, float32 and integer arrays are read (float32 exactly, the others
/// rounded to the nearest f32, as the engine stores them); any other dtype (bool, strings,
/// objects, complex) is a `TypeError`, a wrong shape or a non-finite value a `ValueError`
/// naming `name` and the row.
pub fn rows<const W: usize>(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<[f32; W]>> {
    let flat = floats(name, obj)?;
    let shape = flat.1;
    let n = match shape.as_slice() {
        [n, w] if *w == W => *n,
        _ => {
            return Err(PyValueError::new_err(format!(
                "{name}: expected an array of shape (N, {W}), got shape {}",
                shape_text(&shape)
            )))
        }
    };
    let mut out = Vec::with_capacity(n);
    for (i, row) in flat.0.chunks_exact(W).enumerate() {
        let mut r = [0.0f32; W];
        for (k, (dst, &src)) in r.iter_mut().zip(row).enumerate() {
            if !src.is_finite() {
                let at = if W == 1 {
                    format!("[{i}]")
                } else {
                    format!("[{i}, {k}]")
                };
                return Err(PyValueError::new_err(format!(
                    "{name}{at} is {src}: every value must be finite"
                )));
            }
            *dst = src as f32;
        }
        out.push(r);
    }
    Ok(out)
}

/// Reads `obj` as a grid of vectors, shape (nx, ny, nz, 3) indexed [i, j, k], as [`rows`]
/// reads its floats: the node counts and the vectors with i fastest (then j, then k).
pub fn grid_of_vectors(
    name: &str,
    obj: &Bound<'_, PyAny>,
) -> PyResult<([usize; 3], Vec<[f32; 3]>)> {
    let (values, shape) = floats(name, obj)?;
    let [nx, ny, nz] = match shape.as_slice() {
        [nx, ny, nz, 3] => [*nx, *ny, *nz],
        _ => {
            return Err(PyValueError::new_err(format!(
                "{name}: expected an array of shape (nx, ny, nz, 3), got shape {}",
                shape_text(&shape)
            )))
        }
    };
    let mut out = vec![[0.0f32; 3]; nx * ny * nz];
    // numpy's order is k fastest: node [i, j, k] is at ((i ny + j) nz + k) 3.
    for (n, v) in values.chunks_exact(3).enumerate() {
        let (k, j, i) = (n % nz, n / nz % ny, n / (ny * nz));
        if let Some(c) = v.iter().position(|x| !x.is_finite()) {
            return Err(PyValueError::new_err(format!(
                "{name}[{i}, {j}, {k}, {c}] is {}: every value must be finite",
                v[c]
            )));
        }
        out[i + nx * (j + ny * k)] = [v[0] as f32, v[1] as f32, v[2] as f32];
    }
    Ok(([nx, ny, nz], out))
}

/// A fluid's velocity on a grid: `velocities` as [`grid_of_vectors`] reads them, node
/// [i, j, k] at `origin` + (i, j, k) × `spacing` (m, along x, y and z; needed).
pub fn flow_field(
    velocities: &Bound<'_, PyAny>,
    origin: (f32, f32, f32),
    spacing: Option<(f32, f32, f32)>,
) -> PyResult<FlowField> {
    let Some(spacing) = spacing else {
        return Err(PyValueError::new_err(
            "spacing: the distance between nodes along x, y and z (m) is needed with velocities",
        ));
    };
    let (counts, v) = grid_of_vectors("velocities", velocities)?;
    Ok(FlowField {
        origin: Vec3::from(origin),
        spacing: Vec3::from(spacing),
        counts,
        velocity: v.into_iter().map(Vec3::from_array).collect(),
    })
}

/// Reads `obj` as rows of `width` floats as [`rows`] does, exactly one per body of `n`.
pub fn rows_per_body<const W: usize>(
    name: &str,
    obj: &Bound<'_, PyAny>,
    n: usize,
) -> PyResult<Vec<[f32; W]>> {
    let r = rows::<W>(name, obj)?;
    if r.len() != n {
        return Err(PyValueError::new_err(format!(
            "{name}: expected {n} rows (one per body), got {}",
            r.len()
        )));
    }
    Ok(r)
}

/// Reads `obj` as a one-dimensional array of finite floats (a scalar is broadcast to `n`
/// values when `n` is given).
pub fn column(name: &str, obj: &Bound<'_, PyAny>, n: Option<usize>) -> PyResult<Vec<f32>> {
    let (values, shape) = floats(name, obj)?;
    let values = match (shape.as_slice(), n) {
        ([], Some(n)) => vec![values[0]; n],
        ([m], Some(n)) if *m != n => {
            return Err(PyValueError::new_err(format!(
                "{name}: expected {n} values (one per row), got {m}"
            )))
        }
        ([_], _) => values,
        _ => {
            return Err(PyValueError::new_err(format!(
                "{name}: expected a one-dimensional array{}, got shape {}",
                if n.is_some() { " or a scalar" } else { "" },
                shape_text(&shape)
            )))
        }
    };
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            if v.is_finite() {
                Ok(v as f32)
            } else {
                Err(PyValueError::new_err(format!(
                    "{name}[{i}] is {v}: every value must be finite"
                )))
            }
        })
        .collect()
}

/// The values of a float32/float64 array-like in C order (as f64) and its shape.
fn floats(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<(Vec<f64>, Vec<usize>)> {
    let py = obj.py();
    let arr = if obj.is_instance_of::<numpy::PyUntypedArray>() {
        obj.clone()
    } else {
        py.import("numpy")?
            .call_method1("asarray", (obj,))
            .map_err(|e| PyTypeError::new_err(format!("{name}: not an array of numbers ({e})")))?
    };
    let untyped = arr.cast::<numpy::PyUntypedArray>()?;
    let shape = untyped.shape().to_vec();
    // Floats and integers are numbers ([[0, 0, 1]] is a position); numpy widens them to float64
    // (exactly for float32 and the integers a position or size is made of).
    let kind: String = untyped.dtype().getattr("kind")?.extract()?;
    if !matches!(kind.as_str(), "f" | "i" | "u") {
        return Err(PyTypeError::new_err(format!(
            "{name}: expected numbers (float64, float32 or integers), got dtype {}",
            untyped.dtype()
        )));
    }
    let wide = arr.call_method1("astype", ("float64",))?;
    let wide = wide.cast::<PyArrayDyn<f64>>()?;
    Ok((wide.to_owned_array().iter().copied().collect(), shape))
}

fn shape_text(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A read-only NumPy view of `n` rows of `width` values of type `T` that start at `first` and
/// lie `stride` values apart (width 1 gives a one-dimensional array), kept alive by `owner`.
///
/// # Safety
/// The memory must hold those rows, stay allocated while `owner` lives and not move: the
/// caller hands out views only of buffers that keep their allocation for the owner's life.
pub unsafe fn view<'py, T: numpy::Element>(
    owner: &Bound<'py, PyAny>,
    first: *const T,
    n: usize,
    width: usize,
    stride: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let array = if width == 1 {
        let v = unsafe { ArrayView::from_shape_ptr(n.strides(stride), first) };
        into_numpy(owner, v)
    } else {
        let v = unsafe { ArrayView::from_shape_ptr((n, width).strides((stride, 1)), first) };
        into_numpy(owner, v)
    };
    array.call_method1("setflags", (false,))?;
    Ok(array)
}

fn into_numpy<'py, T: numpy::Element, D: Dimension>(
    owner: &Bound<'py, PyAny>,
    v: ArrayView<'_, T, D>,
) -> Bound<'py, PyAny> {
    // Safety: the caller of `view` guarantees the memory outlives `owner`, which the array
    // keeps alive as its base.
    unsafe { PyArray::borrow_from_array(&v, owner.clone()) }.into_any()
}
