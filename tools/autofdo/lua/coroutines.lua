-- SPDX-License-Identifier: GPL-2.0-only
-- Coroutines: generator pipelines (producer, filters, consumer) and a
-- round-robin scheduler of tasks.
return function(seed, size, hash)
	math.randomseed(seed)
	local h = 2166136261
	local function gen(n)
		return coroutine.wrap(function()
			for i = 1, n do coroutine.yield(math.random(1, 1000)) end
		end)
	end
	local function filt(src, p)
		return coroutine.wrap(function()
			for v in src do if p(v) then coroutine.yield(v) end end
		end)
	end
	local function mapc(src, f)
		return coroutine.wrap(function()
			for v in src do coroutine.yield(f(v)) end
		end)
	end
	local s = 0
	for v in mapc(filt(gen(size), function(v) return v % 3 ~= 0 end), function(v) return v * v end) do
		s = (s + v) & 0xffffffff
	end
	h = hash(h, s)
	-- scheduler: tasks that yield after each step, some finishing early
	local tasks = {}
	for t = 1, 16 do
		tasks[t] = coroutine.create(function(id)
			local acc = id
			for step = 1, size // 16 + id do
				acc = (acc * 1103515245 + step) & 0x7fffffff
				if acc % 97 == 0 then coroutine.yield(acc, "tick") else coroutine.yield(acc) end
			end
			return -1
		end)
	end
	local live, rounds = #tasks, 0
	while live > 0 do
		rounds = rounds + 1
		for t = 1, #tasks do
			local co = tasks[t]
			if co and coroutine.status(co) == "suspended" then
				local ok, v, tag = coroutine.resume(co, t)
				assert(ok)
				if v == -1 then tasks[t] = false; live = live - 1
				else h = hash(h, tag and v + 1 or v) end
			end
		end
	end
	return hash(h, rounds)
end
