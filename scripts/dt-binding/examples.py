#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# usage: examples.py BINDING.yaml DIR
# Writes each entry of the binding's "examples:" to DIR/example-N.dtsi
# (N from 0) and prints how many there were. The kernel's
# dt-extract-example puts them all in one overlay, where a phandle to a
# node outside the example (cpus = <&cpu0>) stays an unresolved fixup;
# check-dt-binding.sh instead compiles each one alone into a tree that has
# those nodes, so every phandle must resolve and a failure names its
# example. Debian's python3 has ruamel.yaml: dt-schema depends on it.
import os
import sys

import ruamel.yaml

binding, outdir = sys.argv[1], sys.argv[2]
with open(binding, encoding="utf-8") as f:
    examples = ruamel.yaml.YAML(typ="safe").load(f).get("examples") or []
for i, text in enumerate(examples):
    with open(os.path.join(outdir, "example-%d.dtsi" % i), "w", encoding="utf-8") as f:
        f.write(text)
print(len(examples))
