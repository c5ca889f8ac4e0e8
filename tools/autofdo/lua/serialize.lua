-- SPDX-License-Identifier: GPL-2.0-only
-- A JSON-like encoder (sorted keys, escapes) and a recursive-descent
-- decoder; random documents are encoded, decoded and encoded again.
return function(seed, size, hash)
	math.randomseed(seed)
	local h = 2166136261
	local esc = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\t"] = "\\t" }
	local function encode(v, out)
		local t = type(v)
		if t == "table" then
			if #v > 0 or next(v) == nil then
				out[#out + 1] = "["
				for i = 1, #v do
					if i > 1 then out[#out + 1] = "," end
					encode(v[i], out)
				end
				out[#out + 1] = "]"
			else
				local keys = {}
				for k in pairs(v) do keys[#keys + 1] = k end
				table.sort(keys)
				out[#out + 1] = "{"
				for i, k in ipairs(keys) do
					if i > 1 then out[#out + 1] = "," end
					encode(k, out)
					out[#out + 1] = ":"
					encode(v[k], out)
				end
				out[#out + 1] = "}"
			end
		elseif t == "string" then
			out[#out + 1] = '"' .. v:gsub('[%c"\\]', function(c)
				return esc[c] or string.format("\\u%04x", c:byte())
			end) .. '"'
		elseif t == "boolean" then
			out[#out + 1] = tostring(v)
		elseif math.type(v) == "integer" then
			out[#out + 1] = string.format("%d", v)
		else
			out[#out + 1] = string.format("%.14g", v)
		end
		return out
	end
	local unesc = { n = "\n", t = "\t", ['"'] = '"', ["\\"] = "\\" }
	local function decode(s)
		local pos = 1
		local value
		local function ws() pos = s:find("[^ \n\t]", pos) or #s + 1 end
		local function str()
			local buf, i = {}, pos + 1
			while true do
				local c = s:sub(i, i)
				if c == '"' then pos = i + 1; return table.concat(buf) end
				if c == "\\" then
					local e = s:sub(i + 1, i + 1)
					if e == "u" then
						buf[#buf + 1] = string.char(tonumber(s:sub(i + 2, i + 5), 16)); i = i + 6
					else
						buf[#buf + 1] = unesc[e]; i = i + 2
					end
				else
					local j = s:find('["\\]', i)
					buf[#buf + 1] = s:sub(i, j - 1); i = j
				end
			end
		end
		function value()
			ws()
			local c = s:sub(pos, pos)
			if c == "{" then
				local t = {}
				pos = pos + 1; ws()
				if s:sub(pos, pos) == "}" then pos = pos + 1; return t end
				repeat
					ws()
					local k = str(); ws()
					assert(s:sub(pos, pos) == ":"); pos = pos + 1
					t[k] = value(); ws()
					c = s:sub(pos, pos); pos = pos + 1
				until c == "}"
				return t
			elseif c == "[" then
				local t = {}
				pos = pos + 1; ws()
				if s:sub(pos, pos) == "]" then pos = pos + 1; return t end
				repeat
					t[#t + 1] = value(); ws()
					c = s:sub(pos, pos); pos = pos + 1
				until c == "]"
				return t
			elseif c == '"' then
				return str()
			elseif s:sub(pos, pos + 3) == "true" then pos = pos + 4; return true
			elseif s:sub(pos, pos + 4) == "false" then pos = pos + 5; return false
			end
			local num = s:match("^-?[%d.eE+-]+", pos)
			pos = pos + #num
			return math.tointeger(tonumber(num)) or tonumber(num)
		end
		return value()
	end
	local names = { "alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta" }
	local function doc(depth)
		local r = math.random(1, depth > 3 and 4 or 6)
		if r == 1 then return math.random(-100000, 100000)
		elseif r == 2 then return math.random(1, 1000) / 8
		elseif r == 3 then return names[math.random(#names)] .. (math.random(2) == 1 and "\n\"q\"\t" or "")
		elseif r == 4 then return math.random(2) == 1
		elseif r == 5 then
			local t = {}
			for i = 1, math.random(0, 5) do t[i] = doc(depth + 1) end
			return t
		end
		local t = {}
		for _ = 1, math.random(1, 5) do t[names[math.random(#names)]] = doc(depth + 1) end
		return t
	end
	for _ = 1, size do
		local d = doc(0)
		local s1 = table.concat(encode(d, {}))
		local s2 = table.concat(encode(decode(s1), {}))
		assert(s1 == s2, "round trip")
		h = hash(h, s1)
	end
	return h
end
