-- SPDX-License-Identifier: GPL-2.0-only
-- Table sorting: numbers, records by several keys, strings; a merge sort in Lua.
return function(seed, size, hash)
	math.randomseed(seed)
	local h = 2166136261
	local a = {}
	for i = 1, size do a[i] = math.random(1, 1000000) end
	table.sort(a)
	for i = 1, size, 97 do h = hash(h, a[i]) end
	local recs = {}
	for i = 1, size do
		recs[i] = { id = i, age = math.random(18, 90), name = "n" .. math.random(1, size // 4) }
	end
	table.sort(recs, function(x, y)
		if x.age ~= y.age then return x.age < y.age end
		if x.name ~= y.name then return x.name < y.name end
		return x.id < y.id
	end)
	for i = 1, size, 53 do h = hash(hash(h, recs[i].id), recs[i].name) end
	-- merge sort of strings, in Lua
	local function msort(t, lo, hi, tmp)
		if hi - lo < 8 then
			for i = lo + 1, hi do
				local v, j = t[i], i - 1
				while j >= lo and t[j] > v do t[j + 1] = t[j]; j = j - 1 end
				t[j + 1] = v
			end
			return
		end
		local mid = (lo + hi) // 2
		msort(t, lo, mid, tmp)
		msort(t, mid + 1, hi, tmp)
		local i, j, k = lo, mid + 1, lo
		while i <= mid and j <= hi do
			if t[j] < t[i] then tmp[k] = t[j]; j = j + 1 else tmp[k] = t[i]; i = i + 1 end
			k = k + 1
		end
		while i <= mid do tmp[k] = t[i]; i = i + 1; k = k + 1 end
		while j <= hi do tmp[k] = t[j]; j = j + 1; k = k + 1 end
		for m = lo, hi do t[m] = tmp[m] end
	end
	local s = {}
	for i = 1, size do s[i] = string.format("%x-%d", math.random(0, 0xfffff), i % 17) end
	msort(s, 1, #s, {})
	for i = 2, #s do assert(s[i - 1] <= s[i]) end
	for i = 1, size, 31 do h = hash(h, s[i]) end
	return h
end
