-- wrk script: cycles through a fixed query mix for GET /api/v1/search.
local queries = {
  "fleischer", "tirads", "lungrads+4B", "bosniak+IIF", "8+mm+solid+nodule",
  "adrenal+incidentaloma+washout", "pirads+4+transition+zone", "LR-5", "recsit",
  "gallbladder+polyp+7+mm",
}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", "/api/v1/search?q=" .. queries[(i % #queries) + 1])
end
