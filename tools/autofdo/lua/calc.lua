-- SPDX-License-Identifier: GPL-2.0-only
-- A small interpreter: random programs of assignments and expressions are
-- printed as text, tokenised, parsed into trees and evaluated; the trees
-- are also compiled to closures and run again, which must agree.
return function(seed, size, hash)
	math.randomseed(seed)
	local h = 2166136261
	local vars = { "a", "b", "c", "d", "e" }
	local ops = { "+", "-", "*", "%", "&", "|" }
	local function expr(depth)
		if depth > 4 or math.random(3) == 1 then
			if math.random(2) == 1 then return tostring(math.random(0, 999)) end
			return vars[math.random(#vars)]
		end
		local l, r = expr(depth + 1), expr(depth + 1)
		if math.random(4) == 1 then return "(" .. l .. ")" end
		return l .. " " .. ops[math.random(#ops)] .. " " .. r
	end
	local prec = { ["|"] = 1, ["&"] = 2, ["+"] = 3, ["-"] = 3, ["*"] = 4, ["%"] = 4 }
	local function tokens(src)
		local t = {}
		for tok in src:gmatch("%s*([%w]+%s*=?=?|[%(%)%+%-%*%%&|;])") do t[#t + 1] = tok end
		return t
	end
	local function lex(src)
		local t, i = {}, 1
		while i <= #src do
			local c = src:sub(i, i)
			if c:match("%s") then i = i + 1
			elseif c:match("%d") then
				local n = src:match("^%d+", i); t[#t + 1] = { k = "num", v = tonumber(n) }; i = i + #n
			elseif c:match("%a") then
				local n = src:match("^%a+", i); t[#t + 1] = { k = "var", v = n }; i = i + #n
			else t[#t + 1] = { k = c }; i = i + 1 end
		end
		return t
	end
	local function parse(toks)
		local p = 1
		local parse_expr
		local function atom()
			local t = toks[p]; p = p + 1
			if t.k == "(" then
				local e = parse_expr(1); p = p + 1; return e
			end
			return t
		end
		function parse_expr(minp)
			local lhs = atom()
			while toks[p] and prec[toks[p].k] and prec[toks[p].k] >= minp do
				local op = toks[p].k; p = p + 1
				lhs = { k = op, l = lhs, r = parse_expr(prec[op] + 1) }
			end
			return lhs
		end
		local prog = {}
		while toks[p] do
			local name = toks[p].v; p = p + 2	-- name =
			prog[#prog + 1] = { name = name, e = parse_expr(1) }
			p = p + 1	-- ;
		end
		return prog
	end
	local M = 0xffffffff
	local function eval(e, env)
		local k = e.k
		if k == "num" then return e.v elseif k == "var" then return env[e.v] end
		local a, b = eval(e.l, env), eval(e.r, env)
		if k == "+" then return (a + b) & M elseif k == "-" then return (a - b) & M
		elseif k == "*" then return (a * b) & M elseif k == "%" then return b == 0 and a or a % b
		elseif k == "&" then return a & b else return a | b end
	end
	local function compile(e)
		local k = e.k
		if k == "num" then local v = e.v; return function() return v end end
		if k == "var" then local n = e.v; return function(env) return env[n] end end
		local l, r = compile(e.l), compile(e.r)
		if k == "+" then return function(env) return (l(env) + r(env)) & M end
		elseif k == "-" then return function(env) return (l(env) - r(env)) & M end
		elseif k == "*" then return function(env) return (l(env) * r(env)) & M end
		elseif k == "%" then return function(env) local a, b = l(env), r(env); return b == 0 and a or a % b end
		elseif k == "&" then return function(env) return l(env) & r(env) end end
		return function(env) return l(env) | r(env) end
	end
	for _ = 1, size do
		local lines = {}
		for i = 1, 6 do lines[i] = vars[math.random(#vars)] .. " = " .. expr(0) .. ";" end
		local src = table.concat(lines, "\n")
		h = hash(h, #tokens(src))
		local prog = parse(lex(src))
		local env1 = { a = 1, b = 2, c = 3, d = 4, e = 5 }
		local env2 = { a = 1, b = 2, c = 3, d = 4, e = 5 }
		for _, st in ipairs(prog) do env1[st.name] = eval(st.e, env1) end
		for _, st in ipairs(prog) do env2[st.name] = compile(st.e)(env2) end
		for _, v in ipairs(vars) do
			assert(env1[v] == env2[v])
			h = hash(h, env1[v])
		end
	end
	return h
end
