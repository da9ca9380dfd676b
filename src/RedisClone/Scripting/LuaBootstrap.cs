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
        -- Text only (Redis's Lua parses every chunk as source: bytecode could break the VM), and
        -- the chunk sees the same protected globals as the script.
        local script_env
        loadstring = function(s, chunkname) return load(s, chunkname, 't', script_env) end
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

        -- 5.1's error() adds the position to a number too ("user_script:1: 12"); 5.4's to strings only.
        -- Not a tail call, so the level still counts from the caller.
        do
          local raise, type_, format = error, type, string.format
          error = function(message, level)
            if type_(message) == 'number' then message = format('%.14g', message) end
            level = level or 1
            if level > 0 then level = level + 1 end
            raise(message, level)
          end
        end

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
            if type_(first) == 'number' and type_(last) == 'number' then
              for k = first, last do
                local v = t[k]
                copy[k] = type_(v) == 'number' and format('%.14g', v) or v
              end
            end
            -- The same indexes as the caller's table, so an error names the caller's index.
            return rethrow('concat', pcall_(concat, copy, sep or '', first, last))
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

        -- Redis's math.random and math.randomseed: the rand48 generator (X = X * 0x5DEECE66D + 0xB
        -- mod 2^48, 31 bits out), one sequence for the whole server from a fixed start, so the
        -- same scripts draw the same numbers as on redis-server.
        do
          local floor, tonumber_, type_, select_, raise, format = math.floor, tonumber, type, select, error, string.format
          local state = 0x1234ABCD330E
          local function next31()
            state = (state * 0x5DEECE66D + 0xB) & 0xFFFFFFFFFFFF
            return state >> 17
          end
          -- luaL_checkint: a number or a numeric string, cut to a C int.
          local function checkint(name, n, present, v)
            local x = (type_(v) == 'number' or type_(v) == 'string') and tonumber_(v) or nil
            if x == nil then
              local got = present and type_(v) or 'no value'
              raise(format("bad argument #%d to '%s' (number expected, got %s)", n, name, got), 3)
            end
            if x ~= x or x >= 2147483648 or x <= -2147483649 then return -2147483648 end
            return x < 0 and -floor(-x) or floor(x)
          end
          math.random = function(...)
            local n = select_('#', ...)
            local r = (next31() % 0x7FFFFFFF) / 0x7FFFFFFF
            if n == 0 then return r end
            local a, b = ...
            if n == 1 then
              local u = checkint('random', 1, true, a)
              if u < 1 then raise("bad argument #1 to 'random' (interval is empty)", 2) end
              return floor(r * u) + 1
            elseif n == 2 then
              local l, u = checkint('random', 1, true, a), checkint('random', 2, true, b)
              if l > u then raise("bad argument #2 to 'random' (interval is empty)", 2) end
              return floor(r * (u - l + 1)) + l
            end
            raise('wrong number of arguments', 2)
          end
          math.randomseed = function(...)
            local seed = checkint('randomseed', 1, select_('#', ...) > 0, (...))
            state = ((seed & 0xFFFFFFFF) << 16) | 0x330E
          end
        end

        -- The sandbox: what Redis leaves out of a script's reach.
        -- Redis 7.4's os library holds os.clock only (the process's CPU seconds, as C's clock());
        -- Redis 7.2 had no os library at all.
        os = { clock = os.clock }
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
        local setresp_, set_repl_, acl_check_cmd_ = __redis_setresp, __redis_set_repl, __redis_acl_check_cmd
        __redis_call, __redis_sha1hex, __redis_log = nil, nil, nil
        __redis_setresp, __redis_set_repl, __redis_acl_check_cmd = nil, nil, nil

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

        redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL = 0, 1, 2, 2, 3

        -- The C# primitives return an error text when the call is refused: raised as {err='ERR ...'}.
        redis.setresp = function(...)
          local failure = setresp_(...)
          if failure then error(error_table(failure)) end
        end

        redis.set_repl = function(...)
          local failure = set_repl_(...)
          if failure then error(error_table(failure)) end
        end

        redis.acl_check_cmd = function(...)
          local failure, allowed = acl_check_cmd_(...)
          if failure then error(error_table(failure)) end
          return allowed
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
          local gsub_ = string.gsub
          __redis__err__handler = function(err)
            local level = 2
            local i = dbg.getinfo(level, 'nSl')
            while i and (i.what == 'C' or i.source == chunk) do
              level = level + 1
              i = dbg.getinfo(level, 'nSl')
            end
            if type(err) == 'string' then
              -- Lua 5.4 names the culprit after the value, 5.1 before it: "attempt to index a nil
              -- value (global 'x')" is 5.1's "attempt to index global 'x' (a nil value)".
              err = gsub_(err, "attempt to (.-) a (%a+) value %((%a+) '(.-)'%)$", "attempt to %1 %3 '%4' (a %2 value)")
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
          __redis__run = function(f, ...)
            top = running()
            local ok, reply = xpcall_(f, handler, ...)
            return ok, reply
          end
          coroutine.yield = function(...)
            if running() == top then raise('attempt to yield across metamethod/C-call boundary', 0) end
            return yield_(...)
          end
        end
        debug = nil -- as Redis: only the error handler keeps it

        -- Redis 7 makes the globals and every library table read-only (a flag in its patched VM).
        -- Here each library table is replaced by a proxy that reads through to it and refuses
        -- writes; pairs walks the library, and rawset refuses the proxies too.
        do
          local G, raise, rawget_, rawset_, next_, setmetatable_, tostring_ = _G, error, rawget, rawset, next, setmetatable, tostring
          local readonly = setmetatable_({}, { __mode = 'k' }) -- proxy -> the table it guards
          local function refuse() raise('Attempt to modify a readonly table', 2) end
          local function protect(t)
            local proxy = setmetatable_({}, {
              __index = t,
              __newindex = refuse,
              __pairs = function() return next_, t, nil end,
              __len = function() return #t end,
              __metatable = false,
            })
            readonly[proxy] = t
            return proxy
          end
          for _, name in ipairs({ 'string', 'table', 'math', 'coroutine', 'redis', 'bit', 'cjson', 'cmsgpack', 'struct', 'os' }) do
            local lib = rawget_(G, name)
            if type(lib) == 'table' then rawset_(G, name, protect(lib)) end
          end
          -- Refused by a C function in Redis: the message carries no script position.
          rawset = function(t, k, v)
            if readonly[t] then raise('Attempt to modify a readonly table', 0) end
            return rawset_(t, k, v)
          end
          setmetatable = function(t, mt)
            if readonly[t] then raise('Attempt to modify a readonly table', 0) end
            return setmetatable_(t, mt)
          end
          -- rawget and next on a proxy see the table behind it; a library has no metatable.
          rawget = function(t, k) return rawget_(readonly[t] or t, k) end
          next = function(t, k) return next_(readonly[t] or t, k) end
          -- The environments scripts and functions run in show a guarded metatable, as Redis's
          -- globals table has one; a library table shows none.
          local views = setmetatable_({}, { __mode = 'k' })
          local getmetatable_ = getmetatable
          getmetatable = function(v)
            if readonly[v] and not views[v] then return nil end
            return getmetatable_(v)
          end
          -- The strings' metatable is read-only too (as Redis after CVE-2025-46818): scripts see a
          -- guarded view of it, whose __index is the (guarded) string library.
          do
            local strings = getmetatable_('')
            strings.__index = rawget_(G, 'string')
            strings.__metatable = protect({ __index = strings.__index })
          end

          -- The environment scripts run in (their _ENV): globals read through to _G, a missing one
          -- is an error (Redis's error metatable, here on _G itself, so a read that finds its name
          -- costs no call), and none can be set, as Redis's protected globals; _G is this view
          -- too. Taken by C#, then removed.
          script_env = setmetatable_({}, {
            __index = G,
            __newindex = refuse,
            __pairs = function() return next_, G, nil end,
            __metatable = protect({}),
          })
          readonly[script_env] = G
          views[script_env] = true
          rawset_(G, '_G', script_env)
          setmetatable_(G, {
            __index = function(_, name)
              raise("Script attempted to access nonexistent global variable '" .. tostring_(name) .. "'", 2)
            end,
          })
          -- Another environment over the same globals (the functions' state has one) registers
          -- itself as read-only too, and gets the guarded stand-in its metatable shows; removed
          -- with __redis__env once the state is set up.
          __redis__guard = function(view)
            readonly[view] = G
            views[view] = true
            return protect({})
          end
          __redis__env = script_env
        end
        """;
}
