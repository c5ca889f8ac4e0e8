# SPDX-License-Identifier: GPL-2.0-only
"""Compare perf's RISC-V disassembly (capstone's) with objdump's.

Usage: riscv-disasm.py PERF-SCRIPT-OUT OBJDUMP-OUT EXPECT

PERF-SCRIPT-OUT is what "perf script --insn-trace=disasm" prints (or any
perf script output with the disasm field): a line per instruction, its
fields, then two tabs and capstone's disassembly; the address is the field
after the time ("TIME:"), or the first field when there is no time (-F
ip,disasm). Lines without the two tabs (a decode error) are not
instructions. OBJDUMP-OUT is "objdump -d -M no-aliases" of the program,
EXPECT the retired instructions' addresses, one a line. Prints one line:
what was compared, or what differs; exit status 1 when an instruction's
disassembly is not objdump's or the instructions are not the expected ones.

The two disassemblers are compared on a normal form:
- objdump is asked for no aliases, its canonical form, which is capstone's
  for every compressed instruction (c.addi16sp, c.ldsp, ...);
- capstone (LLVM's printer) writes some 32-bit instructions as the ISA's
  pseudo-instructions (beqz, j, mv, sext.w, frflags, ...): each is put
  back as the one instruction the RISC-V manual defines it as (PSEUDO);
- operands: blanks dropped, every number compared by value (capstone's hex,
  objdump's decimal), objdump's "# address <symbol>" comments dropped;
- a branch or jump target: objdump's absolute address, capstone's offset
  from the instruction, compared as the absolute address.
"""
import collections
import re
import sys

# pseudo-instruction -> {operand count: canonical instruction}
PSEUDO = {
    "nop": {0: "addi zero,zero,0"},
    "mv": {2: "addi {0},{1},0"},
    "not": {2: "xori {0},{1},-1"},
    "neg": {2: "sub {0},zero,{1}"},
    "negw": {2: "subw {0},zero,{1}"},
    "sext.w": {2: "addiw {0},{1},0"},
    "seqz": {2: "sltiu {0},{1},1"},
    "snez": {2: "sltu {0},zero,{1}"},
    "sltz": {2: "slt {0},{1},zero"},
    "sgtz": {2: "slt {0},zero,{1}"},
    "beqz": {2: "beq {0},zero,{1}"},
    "bnez": {2: "bne {0},zero,{1}"},
    "blez": {2: "bge zero,{0},{1}"},
    "bgez": {2: "bge {0},zero,{1}"},
    "bltz": {2: "blt {0},zero,{1}"},
    "bgtz": {2: "blt zero,{0},{1}"},
    "j": {1: "jal zero,{0}"},
    "jal": {1: "jal ra,{0}"},
    "jr": {1: "jalr zero,0({0})"},
    "jalr": {1: "jalr ra,0({0})"},
    "ret": {0: "jalr zero,0(ra)"},
    "fence": {0: "fence iorw,iorw"},
    "sfence.vma": {0: "sfence.vma zero,zero", 1: "sfence.vma {0},zero"},
    "c.nop": {0: "c.addi zero,0"},
    "csrr": {2: "csrrs {0},{1},zero"},
    "csrw": {2: "csrrw zero,{0},{1}"},
    "csrs": {2: "csrrs zero,{0},{1}"},
    "csrc": {2: "csrrc zero,{0},{1}"},
    "csrwi": {2: "csrrwi zero,{0},{1}"},
    "csrsi": {2: "csrrsi zero,{0},{1}"},
    "csrci": {2: "csrrci zero,{0},{1}"},
}
for csr, name in (("fcsr", "fscsr"), ("frm", "fsrm"), ("fflags", "fsflags")):
    r = {"fcsr": "frcsr", "frm": "frrm", "fflags": "frflags"}[csr]
    PSEUDO[r] = {1: "csrrs {0},%s,zero" % csr}
    PSEUDO[name] = {1: "csrrw zero,%s,{0}" % csr, 2: "csrrw {0},%s,{1}" % csr}
    if csr != "fcsr":
        PSEUDO[name + "i"] = {1: "csrrwi zero,%s,{0}" % csr, 2: "csrrwi {0},%s,{1}" % csr}
for csr in ("cycle", "time", "instret"):
    for h in ("", "h"):
        PSEUDO["rd" + csr + h] = {1: "csrrs {0},%s%s,zero" % (csr, h)}
for x in ("s", "d"):
    PSEUDO["fmv." + x] = {2: "fsgnj.%s {0},{1},{1}" % x}
    PSEUDO["fneg." + x] = {2: "fsgnjn.%s {0},{1},{1}" % x}
    PSEUDO["fabs." + x] = {2: "fsgnjx.%s {0},{1},{1}" % x}

# instructions whose last operand is a PC-relative target
BRANCH = {"beq", "bne", "blt", "bge", "bltu", "bgeu", "jal",
          "c.beqz", "c.bnez", "c.j", "c.jal"}
MASK = (1 << 64) - 1


def operands(text):
    """Operands as tokens, numbers as ints, blanks and comments gone."""
    text = re.sub(r"\s*#.*", "", text)
    text = re.sub(r"\s*<[^>]*>", "", text).replace(" ", "")
    toks = [t for t in re.split(r"([,()])", text) if t]
    return [int(t, 16 if "x" in t else 10) if re.fullmatch(r"-?(0x[0-9a-f]+|[0-9]+)", t)
            else t for t in toks]


def split(text):
    mn, _, ops = text.strip().partition(" ")
    if "\t" in mn:
        mn, _, ops = text.strip().partition("\t")
    return mn, ops.strip()


def norm_objdump(text):
    mn, ops = split(text)
    if mn in BRANCH:	# "beq a5,s2,10464 <abort+0x44>": the target in hex
        ops = re.sub(r"(^|,)([0-9a-f]+)(\s*<.*)?$", r"\g<1>0x\2", ops)
    return mn, operands(ops)


def norm_capstone(addr, text):
    """Returns (mnemonic, operands, the pseudo-instruction's name or None)."""
    mn, ops = split(text)
    toks = operands(ops)
    pseudo = None
    args = [str(t) for t in toks if t != ","]
    forms = PSEUDO.get(mn, {})
    if len(args) in forms and not any(t in ("(", ")") for t in toks):
        pseudo = mn
        mn, _, canon = forms[len(args)].format(*args).partition(" ")
        toks = operands(canon)
    if mn in BRANCH and toks and isinstance(toks[-1], int):
        toks[-1] = (addr + toks[-1]) & MASK
    return mn, toks, pseudo


def instructions(perf_out):
    """(address, disassembly) of each instruction line of perf script."""
    for line in open(perf_out):
        fields, tabs, text = line.rstrip("\n").partition("\t\t")
        if not tabs:
            continue
        f = fields.split()
        at = [i for i, x in enumerate(f) if x.endswith(":")]
        i = at[-1] + 1 if at else 0
        try:
            yield int(f[i], 16), text
        except (IndexError, ValueError):
            yield None, line.strip()


def main(perf_out, objdump_out, expect):
    addrs = [int(x, 16) for x in open(expect) if x.strip()]
    ran = set(addrs)
    want = {}
    for line in open(objdump_out):
        m = re.match(r"^ +([0-9a-f]+):\t[0-9a-f ]+\t(.*)$", line.rstrip("\n"))
        if m and int(m.group(1), 16) in ran:
            want[int(m.group(1), 16)] = norm_objdump(m.group(2))
    got = list(instructions(perf_out))
    if [a for a, _ in got] != addrs:
        i = next((i for i, (a, b) in enumerate(zip([a for a, _ in got], addrs)) if a != b),
                 min(len(got), len(addrs)))
        print("%d disassembled lines for %d retired instructions, the first wrong one "
              "line %d (%s)" % (len(got), len(addrs), i + 1,
                                "'%s'" % got[i][1] if i < len(got) else "none"))
        return 1
    bad = collections.Counter()
    first = {}
    pseudos = collections.Counter()
    seen = {}
    for addr, text in got:
        if (addr, text) not in seen:	# the loops' instructions, once
            seen[addr, text] = norm_capstone(addr, text)
        mn, toks, pseudo = seen[addr, text]
        if (mn, toks) != want.get(addr):
            key = want[addr][0] if addr in want else "no objdump line"
            bad[key] += 1
            first.setdefault(key, "%#x: perf '%s'" % (addr, text))
        elif pseudo:
            pseudos[pseudo] += 1
    mnems = {want[a][0] for a, _ in got if a in want}
    if bad:
        print("%d of %d differ from objdump's: %s%s" % (
            sum(bad.values()), len(got),
            "; ".join("%s %d (first %s)" % (k, n, first[k]) for k, n in bad.most_common(5)),
            "; ..." if len(bad) > 5 else ""))
        return 1
    print("%d instructions at %d addresses, %d mnemonics, as objdump's; "
          "%d written as pseudo-instructions (%s)" % (
              len(got), len(set(addrs)), len(mnems), sum(pseudos.values()),
              ", ".join("%s %d" % kv for kv in pseudos.most_common())))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
