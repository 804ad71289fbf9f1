"""perflint's probe shim: runs a training script as __main__ for a few steps under light
instrumentation and writes the evidence perflint turns into verdicts. Works on torch 1.13 and 2.x.

Started by perflint as `python -m perflint_probe --steps N --warmup W --out EVIDENCE [--apply FIX]...
-- SCRIPT ARGS`. Without --apply nothing here changes what the script computes; it only observes and
ends the run after W + N steps. Each --apply FIX (fixes.py, for `perflint --probe --verify`) makes
one named change at run time, and only that one.
"""

EVIDENCE_SCHEMA = 1
