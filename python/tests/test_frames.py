"""The ParaView frames in each `frame_encoding`: meshio, a reader independent of the engine,
opens the binary and zlib frames and finds the ASCII frame's arrays in them, and the centres
are the run's last state. Skipped where meshio is not installed (tests/pytest.rs installs it
when PyPI is reachable)."""

import numpy as np
import pytest

import grains


def test_meshio_reads_the_frames_in_every_encoding(pile_scene, tmp_path):
    meshio = pytest.importorskip("meshio")
    scene = tmp_path / "pile.toml"
    scene.write_text(pile_scene.read_text().replace('formats = ["csv"]', 'formats = ["vtu", "csv"]'))
    meshes = {}
    for encoding in ("ascii", "binary", "zlib"):
        out = tmp_path / encoding
        grains.run(scene, out, steps=25, progress=False, frame_encoding=encoding)
        frame = out / "frames" / "frame_000000025.vtu"
        head = frame.read_bytes()[:400]
        assert (b"AppendedData" in frame.read_bytes()) == (encoding != "ascii"), encoding
        assert (b"vtkZLibDataCompressor" in head) == (encoding == "zlib"), encoding
        meshes[encoding] = meshio.read(frame)
    ascii = meshes["ascii"]
    world = grains.load_scene(scene)
    world.restore((tmp_path / "binary" / "checkpoint.bin").read_bytes())
    assert world.steps == 25
    for encoding in ("binary", "zlib"):
        m = meshes[encoding]
        assert m.points.dtype == np.float32 and m.points.shape == (216, 3)
        assert np.array_equal(m.points, world.positions.astype(np.float32))
        assert np.array_equal(m.points, ascii.points)
        assert set(m.point_data) == set(ascii.point_data)
        for name, values in ascii.point_data.items():
            assert np.array_equal(m.point_data[name], values), (encoding, name)
        assert np.array_equal(m.point_data["id"].ravel(), np.arange(216))
        assert np.array_equal(m.point_data["radius"].ravel(), world.radii.astype(np.float32))


def test_an_unknown_frame_encoding_is_refused(pile_scene, tmp_path):
    with pytest.raises(ValueError, match="frame_encoding"):
        grains.run(pile_scene, tmp_path / "never", steps=1, progress=False, frame_encoding="hdf5")
    assert not (tmp_path / "never").exists()
