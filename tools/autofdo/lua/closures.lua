-- SPDX-License-Identifier: GPL-2.0-only
-- Closures and higher-order functions: map/filter/fold, counters, memoisation,
-- method calls through metatables.
return function(seed, size, hash)
	math.randomseed(seed)
	local h = 2166136261
	local function map(t, f) local r = {} for i = 1, #t do r[i] = f(t[i]) end return r end
	local function filter(t, p) local r = {} for i = 1, #t do if p(t[i]) then r[#r + 1] = t[i] end end return r end
	local function fold(t, f, acc) for i = 1, #t do acc = f(acc, t[i]) end return acc end
	local function compose(f, g) return function(x) return f(g(x)) end end
	local function adder(n) return function(x) return x + n end end
	local function counter()
		local c = 0
		return function(d) c = c + (d or 1); return c end
	end
	local xs = {}
	for i = 1, 200 do xs[i] = math.random(-1000, 1000) end
	local cnt = counter()
	for r = 1, size // 200 do
		local f = compose(adder(r), function(x) return x * 3 - r end)
		local ys = filter(map(xs, f), function(y) cnt(); return y % 3 ~= 0 end)
		h = hash(h, fold(ys, function(a, b) return (a * 7 + b) & 0xffffff end, r))
	end
	h = hash(h, cnt(0))
	-- memoised recursive function
	local memo = {}
	local function ways(n, k)
		if n == 0 then return 1 end
		if n < 0 or k == 0 then return 0 end
		local key = n * 64 + k
		local v = memo[key]
		if v then return v end
		v = (ways(n - k, k) + ways(n, k - 1)) & 0xffffffffff
		memo[key] = v
		return v
	end
	for n = 1, size // 300 do h = hash(h, ways(n, math.min(n, 40))) end
	-- objects: a class with methods, an inherited override
	local Acc = {}
	Acc.__index = Acc
	function Acc.new(v) return setmetatable({ v = v, n = 0 }, Acc) end
	function Acc:add(x) self.v = (self.v + x) & 0xffffffff; self.n = self.n + 1; return self end
	function Acc:get() return self.v ~ self.n end
	local Mul = setmetatable({}, { __index = Acc })
	Mul.__index = Mul
	function Mul.new(v) return setmetatable(Acc.new(v), Mul) end
	function Mul:add(x) self.v = (self.v * 31 + x) & 0xffffffff; self.n = self.n + 1; return self end
	local objs = { Acc.new(1), Mul.new(2), Acc.new(3), Mul.new(4) }
	for i = 1, size do objs[i % 4 + 1]:add(i):add(i >> 1) end
	for _, o in ipairs(objs) do h = hash(h, o:get()) end
	return h
end
