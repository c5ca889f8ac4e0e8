-- SPDX-License-Identifier: GPL-2.0-only
-- String work: building words, patterns, gsub, formatting, concatenation.
return function(seed, size, hash)
	math.randomseed(seed)
	local syll = { "ka", "lo", "mi", "ne", "ru", "to", "sha", "vi", "pe", "zo", "qua", "dre" }
	local h = 2166136261
	local words = {}
	for i = 1, size do
		local n = math.random(1, 4)
		local w = {}
		for j = 1, n do w[j] = syll[math.random(#syll)] end
		words[i] = table.concat(w)
	end
	-- a text of sentences, then statistics over it
	local lines = {}
	for i = 1, size // 10 do
		local s = {}
		for j = 1, 10 do s[j] = words[(i * 7 + j * 13) % size + 1] end
		s[1] = s[1]:sub(1, 1):upper() .. s[1]:sub(2)
		lines[i] = table.concat(s, " ") .. "."
	end
	local text = table.concat(lines, "\n")
	local freq = {}
	for w in text:gmatch("%a+") do
		w = w:lower()
		freq[w] = (freq[w] or 0) + 1
	end
	local keys = {}
	for k in pairs(freq) do keys[#keys + 1] = k end
	table.sort(keys)
	for _, k in ipairs(keys) do h = hash(hash(h, k), freq[k]) end
	-- rewrite: vowels doubled, syllables swapped, numbers formatted
	local t2 = text:gsub("[aeiou]", "%0%0"):gsub("(%a)(%a)", "%2%1")
	h = hash(h, #t2)
	local n = 0
	for a, b in t2:gmatch("(%a+) (%a+)") do
		if #a > #b then n = n + 1 end
	end
	h = hash(h, n)
	for i = 1, size do
		local s = string.format("%05d:%s:%x:%-8s|", i, words[i], i * 2654435761 & 0xffff, words[size - i + 1])
		h = hash(h, s:rep(1 + i % 3):reverse():sub(3, 20))
		local p = s:find(words[i], 1, true)
		h = hash(h, p)
	end
	return h
end
