-- SPDX-License-Identifier: GPL-2.0-only
-- Numeric code: a gravitational n-body simulation (symplectic Euler steps),
-- with the energy before and after. Only + - * / and sqrt, so the result is
-- the same on every IEEE machine.
return function(seed, steps, hash)
	math.randomseed(seed)
	local bodies = {}
	for i = 1, 6 do
		bodies[i] = {
			x = math.random() * 20 - 10, y = math.random() * 20 - 10, z = math.random() * 2 - 1,
			vx = math.random() - 0.5, vy = math.random() - 0.5, vz = (math.random() - 0.5) / 10,
			m = i == 1 and 1000 or math.random() * 2 + 0.1,
		}
	end
	local function energy()
		local e = 0.0
		for i = 1, #bodies do
			local b = bodies[i]
			e = e + 0.5 * b.m * (b.vx * b.vx + b.vy * b.vy + b.vz * b.vz)
			for j = i + 1, #bodies do
				local c = bodies[j]
				local dx, dy, dz = b.x - c.x, b.y - c.y, b.z - c.z
				e = e - b.m * c.m / math.sqrt(dx * dx + dy * dy + dz * dz)
			end
		end
		return e
	end
	local function advance(dt)
		local n = #bodies
		for i = 1, n do
			local b = bodies[i]
			for j = i + 1, n do
				local c = bodies[j]
				local dx, dy, dz = b.x - c.x, b.y - c.y, b.z - c.z
				local d2 = dx * dx + dy * dy + dz * dz + 0.01
				local mag = dt / (d2 * math.sqrt(d2))
				local bm, cm = b.m * mag, c.m * mag
				b.vx = b.vx - dx * cm; b.vy = b.vy - dy * cm; b.vz = b.vz - dz * cm
				c.vx = c.vx + dx * bm; c.vy = c.vy + dy * bm; c.vz = c.vz + dz * bm
			end
		end
		for i = 1, n do
			local b = bodies[i]
			b.x = b.x + dt * b.vx; b.y = b.y + dt * b.vy; b.z = b.z + dt * b.vz
		end
	end
	local h = hash(2166136261, energy())
	for _ = 1, steps do advance(0.001) end
	h = hash(h, energy())
	for _, b in ipairs(bodies) do h = hash(h, b.x) end
	return h
end
