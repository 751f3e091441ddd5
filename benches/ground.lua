-- wrk script: POSTs one report to the MCP endpoint as a `radref_ground` tool call, the same
-- request on every connection and every time.
--   wrk -s benches/ground.lua URL -- FILE
-- e.g. FILE = benches/reports/4-ct-abdomen-pelvis.txt. The text is sent as written (JSON-escaped);
-- the request is built once, so wrk's own cost per request stays that of a fixed string.
local req

-- JSON string escape: quote, backslash and the control characters; other bytes (UTF-8 text)
-- are valid in a JSON string as they are.
local function json_string(s)
  local named = { ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }
  return '"' .. s:gsub('[%c"\\]', function(c)
    return named[c] or string.format('\\u%04x', c:byte())
  end) .. '"'
end

function init(args)
  local file = args[1]
  local f = assert(io.open(file, "rb"), "cannot open " .. tostring(file))
  local text = f:read("*a")
  f:close()
  if text == "" then
    error("empty report " .. file)
  end
  local body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"radref_ground",'
    .. '"arguments":{"text":' .. json_string(text) .. '}}}'
  req = wrk.format("POST", "/mcp", {
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json, text/event-stream",
  }, body)
end

function request()
  return req
end

-- A 200 is not enough: a tool's refusal is a 200 with "isError": true. Counted into wrk's
-- non-2xx figure is not possible from here, so the first such answer stops the run loudly.
function response(status, headers, body)
  if status ~= 200 or body:find('"isError":true', 1, true) then
    io.stderr:write("radref_ground answered " .. status .. ": " .. body:sub(1, 300) .. "\n")
    os.exit(1)
  end
end
