-- SPDX-License-Identifier: GPL-2.0-only
-- A mix of Lua workloads for profiling the interpreter (AutoFDO training
-- and evaluation runs, scripts/fdo-programs.sh). Usage: lua bench.lua
-- train|eval [PERCENT] (PERCENT scales the sizes, default 100, for a
-- quick estimate of a run's length). Each workload file returns a function (seed, size, hash)
-- that gives an integer checksum; the run prints "name checksum" per
-- workload, then "total checksum". The output is the same on any Lua 5.4
-- (integer arithmetic, IEEE + - * / and sqrt only), so it can be checked
-- against another build of the interpreter.
local dir = (arg and arg[0] or ""):match("^(.*/)") or ""

-- 32-bit FNV-style fold of integers and strings into a checksum.
local function hash(h, v)
	if type(v) == "string" then
		for i = 1, #v do h = ((h ~ v:byte(i)) * 16777619) & 0xffffffff end
		return h
	elseif math.type(v) == "float" then
		v = string.format("%.10g", v)
		return hash(h, v)
	end
	return ((h ~ (v & 0xffffffff)) * 16777619) & 0xffffffff
end

-- workload, then its size in each mode; the seeds differ too. A run is
-- about 130 (train) and 145 (eval) million riscv64 instructions.
local plans = {
	train = { seed = 11, { "strings", 300 }, { "sorting", 700 }, { "closures", 4000 },
		{ "coroutines", 2000 }, { "serialize", 80 }, { "nbody", 420 }, { "calc", 20 } },
	eval = { seed = 29, { "strings", 450 }, { "sorting", 500 }, { "closures", 6000 },
		{ "coroutines", 1500 }, { "serialize", 120 }, { "nbody", 300 }, { "calc", 30 } },
}
local mode = arg and arg[1] or "train"
local plan = plans[mode] or error("usage: lua bench.lua train|eval [PERCENT]")
local pct = math.tointeger(tonumber(arg and arg[2] or "100")) or error("PERCENT: an integer")
local total = 2166136261
for i, w in ipairs(plan) do
	local run = dofile(dir .. w[1] .. ".lua")
	local sum = run(plan.seed * 1000 + i, math.max(1, w[2] * pct // 100), hash)
	print(string.format("%-10s %08x", w[1], sum))
	total = hash(total, sum)
end
print(string.format("%-10s %08x", "total", total))
