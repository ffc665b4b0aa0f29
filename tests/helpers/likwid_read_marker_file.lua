-- SPDX-License-Identifier: Apache-2.0
-- Reads a marker file with likwid's own reader (Debian's likwid: liblikwid's
-- perfmon_readMarkerFile, through its Lua module) and prints what it found, one line a region and
-- thread: "<tag> <thread> <count> <first value>". likwid reads only after initialising for this
-- CPU; where it cannot, prints "cannot initialise: <code>" and exits 3.
package.path = '/usr/share/lua/?.lua;' .. package.path
local likwid = require("likwid")
likwid.getConfiguration()
local topology = likwid.getCpuTopology()
local cpus = {}
for i = 0, topology.numHWThreads - 1 do cpus[#cpus + 1] = i end
local status = likwid.init(#cpus, cpus)
if status ~= 0 then
  print("cannot initialise: " .. tostring(status))
  os.exit(3)
end
likwid.addEventSet(arg[2])
if likwid.readMarkerFile(arg[1]) < 0 then
  print("cannot read the marker file")
  os.exit(1)
end
for region = 1, likwid.markerNumRegions() do
  for thread = 1, likwid.markerRegionThreads(region) do
    print(string.format("%s %d %d %.0f", likwid.markerRegionTag(region), thread - 1,
                        likwid.markerRegionCount(region, thread), likwid.markerRegionResult(region, 1, thread)))
  end
end
