-- wrk script: cycles through the lines of a file, each appended to a path prefix.
--   wrk -s benches/mix.lua URL -- FILE PREFIX
-- e.g. FILE = build/bench/queries.txt (the generated query mix, already URL-encoded) and
-- PREFIX = "/api/v1/search?q=", or FILE = build/bench/slugs.txt and PREFIX = "/api/v1/systems/".
local paths = {}
local i = 0

function init(args)
  local file, prefix = args[1], args[2] or ""
  for line in io.lines(file) do
    if line ~= "" then
      paths[#paths + 1] = prefix .. line
    end
  end
  if #paths == 0 then
    error("no lines in " .. tostring(file))
  end
end

function request()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1])
end
