"""Prepares the Jupyter recipe's notebooks for tests/course/jupyter.test.mjs.

usage: prepare.py SOURCE OUTDIR PORT

Points the notebook at the test's http.server (localhost:8000 -> localhost:PORT), runs it
with a real kernel (nbclient, as Jupyter does), and writes two notebooks to OUTDIR:
  trusted.ipynb    the cell's output saved, signed as a notebook its reader ran or trusts
  untrusted.ipynb  the same output, unsigned: a notebook handed out with its outputs
Signatures go to JUPYTER_DATA_DIR, which the notebook server must share.
"""
import copy
import os
import sys

import nbformat
from nbclient import NotebookClient
from nbformat.sign import NotebookNotary

source, outdir, port = sys.argv[1], sys.argv[2], sys.argv[3]
nb = nbformat.read(source, as_version=4)
for cell in nb.cells:
    cell.source = cell.source.replace("localhost:8000", f"localhost:{port}")

executed = copy.deepcopy(nb)
NotebookClient(executed, timeout=60, kernel_name="python3").execute()
html = [o for c in executed.cells for o in c.get("outputs", []) if "text/html" in o.get("data", {})]
if len(html) != 1 or "<iframe" not in html[0]["data"]["text/html"]:
    sys.exit(f"prepare.py: expected one iframe output, got {html!r}")
NotebookNotary().sign(executed)
nbformat.write(executed, os.path.join(outdir, "trusted.ipynb"))
# Trust is kept by content (a digest in JUPYTER_DATA_DIR's database): a copy with other text is
# a notebook this server has never seen run.
handed_out = copy.deepcopy(executed)
handed_out.cells[0].source += "\n\n(Handed out with its outputs.)"
nbformat.write(handed_out, os.path.join(outdir, "untrusted.ipynb"))
print(html[0]["data"]["text/html"].strip())
