namespace RedisClone.Scripting;

/// <summary>
/// The Lua source run once in every new state, before any script: the Lua 5.1 compatibility layer
/// (Redis runs Lua 5.1, KeraLua ships 5.4), the sandbox, the <c>redis</c> library built on the C#
/// primitives <see cref="LuaEngine"/> registers, and Redis's error handler.
/// </summary>
/// <remarks>
/// C# callbacks never raise a Lua error (a longjmp over managed frames is unsupported in .NET): they
/// return an error value, and the Lua wrappers here call error(). Functions defined here carry the
/// chunk name "=redislib", so the error handler skips them when it looks for the script's line.
/// </remarks>
internal static class LuaBootstrap
{
    public const string ChunkName = "=redislib";

    public const string Source = """
        -- Lua 5.1 globals that 5.4 dropped (KeraLua's build has no LUA_COMPAT_5_1).
        unpack = table.unpack
        loadstring = function(s, chunkname) return load(s, chunkname) end
        table.getn = function(t) return #t end
        table.maxn = function(t)
          local n = 0
          for k in pairs(t) do if type(k) == 'number' and k > n then n = k end end
          return n
        end
        math.pow = function(a, b) return a ^ b end
        math.mod = math.fmod
        math.log10 = function(x) return math.log(x, 10) end
        math.ldexp = function(m, e) return m * 2.0 ^ e end
        string.gfind = string.gmatch
        gcinfo = function() return math.floor(collectgarbage('count')) end

        -- Numbers print as Lua 5.1 prints them (%.14g: 10/2 is "5", 1e14 is "1e+14"), where 5.4
        -- writes "5.0" and every digit. The `..` operator formats inside the VM and stays 5.4's.
        do
          local format, tostring_, concat, type_, pcall_, raise = string.format, tostring, table.concat, type, pcall, error
          local modf, tointeger, unpack_, select_ = math.modf, math.tointeger, table.unpack, select
          tostring = function(...)
            local v = ...
            if select_('#', ...) == 0 then return tostring_() end
            if type_(v) == 'number' then return format('%.14g', v) end
            return tostring_(v)
          end
          -- Errors of the wrapped C functions are raised again at the script's line (level 2), not
          -- this library's.
          -- (Called through pcall, a C function is named '?' in its argument errors: put its name back.)
          local gsub_ = string.gsub
          local function rethrow(name, ok, ...)
            if ok then return ... end
            local message = ...
            if type_(message) == 'string' then message = gsub_(message, "to '%?'", "to '" .. name .. "'", 1) end
            raise(message, 2) -- rethrow is tail-called: level 2 is the script
          end
          table.concat = function(t, sep, i, j)
            if type_(t) ~= 'table' then return rethrow('concat', pcall_(concat, t, sep, i, j)) end
            local first, last = i or 1, j or #t
            local copy = {}
            for k = first, last do
              local v = t[k]
              copy[k - first + 1] = type_(v) == 'number' and format('%.14g', v) or v
            end
            return rethrow('concat', pcall_(concat, copy, sep or '', 1, last - first + 1))
          end
          -- 5.1's string.format: %d and the other integer conversions truncate a float, %s prints a
          -- number as tostring does.
          local integer_conversions = { d = true, i = true, c = true, o = true, x = true, X = true }
          string.format = function(fmt, ...)
            local args = { n = select_('#', ...), ... }
            if type_(fmt) == 'string' then
              local n = 0
              for conversion in fmt:gmatch('%%[-+ #0]*%d*%.?%d*(.)') do
                if conversion ~= '%' then
                  n = n + 1
                  local v = args[n]
                  if type_(v) == 'number' then
                    if integer_conversions[conversion] then
                      args[n] = tointeger((modf(v))) or v
                    elseif conversion == 's' then
                      args[n] = format('%.14g', v)
                    end
                  end
                end
              end
            end
            return rethrow('format', pcall_(format, fmt, unpack_(args, 1, args.n)))
          end
        end

        -- The sandbox: what Redis leaves out of a script's reach.
        do
          local clock = os.clock
          os = { clock = clock }
        end
        io = nil
        loadfile = nil
        dofile = nil
        require = nil
        package = nil
        print = nil
        -- Lua 5.4 globals that 5.1 does not have.
        utf8 = nil
        warn = nil
        rawlen = nil

        local call_, sha1hex_, log_ = __redis_call, __redis_sha1hex, __redis_log
        __redis_call, __redis_sha1hex, __redis_log = nil, nil, nil

        -- Redis's luaPushErrorBuff: "-CODE msg" keeps CODE, anything else gets ERR; newlines trimmed.
        local function error_table(s)
          local code, msg = 'ERR', s
          if s:sub(1, 1) == '-' then
            local space = s:find(' ', 1, true)
            if space then code, msg = s:sub(2, space - 1), s:sub(space + 1) else msg = s:sub(2) end
          end
          msg = (msg:gsub('^[\r\n]+', ''):gsub('[\r\n]+$', ''))
          return { err = code .. ' ' .. msg }
        end

        redis = {}
        redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING = 0, 1, 2, 3
        redis.REDIS_VERSION = '__VERSION__'
        redis.REDIS_VERSION_NUM = __VERSION_NUM__

        -- Deprecated: scripts always replicate their effects (Redis 7).
        redis.replicate_commands = function() return true end
        -- The script debugger (SCRIPT DEBUG) is not there: no breakpoint is ever active.
        redis.breakpoint = function() return false end
        redis.debug = function() end

        redis.call = function(...)
          local reply, failed = call_(true, ...)
          if failed then error(reply) end
          return reply
        end

        redis.pcall = function(...)
          local reply = call_(false, ...)
          return reply
        end

        redis.error_reply = function(...)
          local s = ...
          if select('#', ...) ~= 1 or type(s) ~= 'string' then return error_table('wrong number or type of arguments') end
          if s:sub(1, 1) ~= '-' then s = '-' .. s end
          return error_table(s)
        end

        redis.status_reply = function(...)
          local s = ...
          if select('#', ...) ~= 1 or type(s) ~= 'string' then return error_table('wrong number or type of arguments') end
          return { ok = s }
        end

        redis.sha1hex = function(...)
          if select('#', ...) ~= 1 then error(error_table('wrong number of arguments')) end
          return sha1hex_((...))
        end

        redis.log = function(...)
          local n, level = select('#', ...), ...
          if n < 2 then error(error_table('redis.log() requires two arguments or more.')) end
          if type(level) ~= 'number' then error(error_table('First argument must be a number (log level).')) end
          if level < 0 or level > 3 then error(error_table('Invalid debug level.')) end
          local parts = {}
          for i = 2, n do
            local v = select(i, ...)
            parts[#parts + 1] = (type(v) == 'string' or type(v) == 'number') and tostring(v) or ''
          end
          log_(level, table.concat(parts, ' '))
        end

        -- Redis's __redis__err__handler: an error becomes {err=..., source=..., line=...}, with the
        -- line of the script that raised it (C functions and this library are skipped).
        do
          local dbg = debug
          local chunk = '__CHUNK__'
          __redis__err__handler = function(err)
            local level = 2
            local i = dbg.getinfo(level, 'nSl')
            while i and (i.what == 'C' or i.source == chunk) do
              level = level + 1
              i = dbg.getinfo(level, 'nSl')
            end
            if type(err) ~= 'table' then err = { err = 'ERR ' .. tostring(err) } end
            if i then
              err['source'] = i.source
              err['line'] = i.currentline
            end
            return err
          end
        end
        -- Runs a script in the coroutine C# resumes, under the error handler: (true, reply) or
        -- (false, error). xpcall lets a kill's yield through (see ScriptWatchdog).
        -- A yield from the script itself (not from a coroutine it made) fails as in 5.1, where a script
        -- runs in the main thread: a plain error, which pcall catches.
        do
          local xpcall_, handler, running, yield_, raise = xpcall, __redis__err__handler, coroutine.running, coroutine.yield, error
          local top
          __redis__run = function(f)
            top = running()
            local ok, reply = xpcall_(f, handler)
            return ok, reply
          end
          coroutine.yield = function(...)
            if running() == top then raise('attempt to yield across metamethod/C-call boundary', 0) end
            return yield_(...)
          end
        end
        debug = nil -- as Redis: only the error handler keeps it

        -- The environment scripts run in (their _ENV): globals read through to _G, a missing one is
        -- an error, and none can be set, as Redis's protected globals. Taken by C#, then removed.
        do
          local G, raise, rawget_, tostring_ = _G, error, rawget, tostring
          __redis__env = setmetatable({}, {
            __index = function(_, name)
              local value = rawget_(G, name)
              if value == nil then
                raise("Script attempted to access nonexistent global variable '" .. tostring_(name) .. "'", 2)
              end
              return value
            end,
            __newindex = function() raise('Attempt to modify a readonly table', 2) end,
            __metatable = false,
          })
        end
        """;
}
