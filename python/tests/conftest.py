"""Shared fixtures of the Python package's tests."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = pathlib.Path(__file__).resolve().parent / "data"


@pytest.fixture
def pile_scene():
    """The 216-sphere pour of tests/data/pile.toml."""
    return DATA / "pile.toml"


@pytest.fixture(scope="session")
def grains_cli():
    """The `grains` program built from this checkout (GRAINS_BIN, else target/release/grains):
    the Rust library's own runs to compare with."""
    path = pathlib.Path(os.environ.get("GRAINS_BIN", ROOT / "target" / "release" / "grains"))
    if not path.exists():
        pytest.fail(f"no grains program at {path}: build it with cargo build --release -p grains-cli")
    return path
