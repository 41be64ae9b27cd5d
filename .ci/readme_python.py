"""Runs the README's Python quick start verbatim: the shell block between the quick start's
markers in bash from the repository's root, then each Python block with the interpreter of the
virtual environment the shell block made (.venv). Then the tutorial docs/tutorial-silo.md: its
Python blocks, in order, as one script with the same interpreter (it asserts its own results)."""

import pathlib
import re
import subprocess
import sys
import time

root = pathlib.Path(__file__).resolve().parents[1]
python = root / ".venv" / "bin" / "python"
text = (root / "README.md").read_text()
start = text.index("<!-- python quick start")
end = text.index("<!-- end of the python quick start -->")
blocks = re.findall(r"```(sh|python)\n(.*?)```", text[start:end], re.S)
assert [k for k, _ in blocks] == ["sh", "python"], blocks
for kind, code in blocks:
    if kind == "sh":
        subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=root, check=True)
    else:
        subprocess.run([str(python), "-c", code], cwd=root, check=True)
print("the README's Python quick start ran", file=sys.stderr)

tutorial = (root / "docs" / "tutorial-silo.md").read_text()
script = "\n".join(re.findall(r"```python\n(.*?)```", tutorial, re.S))
began = time.monotonic()
subprocess.run([str(python), "-c", script], cwd=root, check=True)
print(f"docs/tutorial-silo.md ran in {time.monotonic() - began:.0f} s", file=sys.stderr)
