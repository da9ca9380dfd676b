namespace RedisClone.Scripting;

/// <summary>
/// The Lua source run once in the functions' state, after <see cref="LuaBootstrap"/>: the
/// environment libraries run in, the load-time API and <c>redis.register_function</c>, as Redis
/// 7.2's function_lua.c sets them up.
/// </summary>
/// <remarks>
/// A library's code and every function it defines share one environment whose reads go to a
/// switchable table: while the library loads, only the load-time API (a <c>redis</c> holding
/// register_function, log, the LOG_ levels and the version); when its functions run later, the
/// state's globals, their tables seen through read-only views. In both, a missing name is an error
/// and nothing can be assigned, as Redis's protected globals. register_function checks its arguments in Lua and raises error tables, so no
/// C# callback raises a Lua error; the registered functions go back to C# as a list.
/// </remarks>
internal static class FunctionBootstrap
{
    public const string Source = """
        do
          local G, raise, rawget_, tostring_, type_, pcall_, select_, next_ = _G, error, rawget, tostring, type, pcall, select, next
          local setmetatable_, format, lower, find = setmetatable, string.format, string.lower, string.find

          local function error_table(message) return { err = 'ERR ' .. message } end

          local function readonly() raise('Attempt to modify a readonly table', 2) end

          -- A read-only view of `contents` where a missing name is an error (Redis's error metatable).
          local function protected(contents)
            return setmetatable_({}, {
              __index = function(_, name)
                local value = rawget_(contents, name)
                if value == nil then
                  raise("Script attempted to access nonexistent global variable '" .. tostring_(name) .. "'", 2)
                end
                return value
              end,
              __newindex = readonly,
              __metatable = false,
            })
          end

          -- lua_isstring + lua_tostring: strings, and numbers printed as Lua 5.1 prints them.
          local function string_arg(v)
            local t = type_(v)
            if t == 'string' then return v end
            if t == 'number' then return format('%.14g', v) end
            return nil
          end

          local known_flags = { ['no-writes'] = 1, ['allow-oom'] = 2, ['allow-stale'] = 4, ['no-cluster'] = 8, ['allow-cross-slot-keys'] = 16 }

          -- The flags table's array part up to its first nil; nil when one is not a known flag.
          local function read_flags(t)
            local mask, j = 0, 1
            while true do
              local v = t[j]
              if v == nil then return mask end
              local s = string_arg(v)
              local bit = s and known_flags[lower(s)]
              if not bit then return nil end
              mask = mask | bit
              j = j + 1
            end
          end

          local function named_arguments(t)
            if type_(t) ~= 'table' then
              raise(error_table('calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).'))
            end
            local name, description, callback, flags = nil, nil, nil, 0
            for k, v in next_, t do
              local key = string_arg(k)
              if not key then raise(error_table('named argument key given to redis.register_function is not a string')) end
              key = lower(key)
              if key == 'function_name' then
                name = string_arg(v)
                if not name then raise(error_table('function_name argument given to redis.register_function must be a string')) end
              elseif key == 'description' then
                description = string_arg(v)
                if not description then raise(error_table('description argument given to redis.register_function must be a string')) end
              elseif key == 'callback' then
                if type_(v) ~= 'function' then raise(error_table('callback argument given to redis.register_function must be a function')) end
                callback = v
              elseif key == 'flags' then
                if type_(v) ~= 'table' then raise(error_table('flags argument to redis.register_function must be a table representing function flags')) end
                flags = read_flags(v)
                if not flags then raise(error_table('unknown flag given')) end
              else
                raise(error_table('unknown argument given to redis.register_function'))
              end
            end
            if not name then raise(error_table('redis.register_function must get a function name argument')) end
            if not callback then raise(error_table('redis.register_function must get a callback argument')) end
            return name, description, callback, flags
          end

          local registered, registered_names -- while a library loads: what it registered so far

          local function register_function(...)
            if not registered then raise(error_table('redis.register_function can only be called on FUNCTION LOAD command')) end
            local n = select_('#', ...)
            if n < 1 or n > 2 then raise(error_table('wrong number of arguments to redis.register_function')) end
            local name, description, callback, flags
            if n == 1 then
              name, description, callback, flags = named_arguments((...))
            else
              local first, second = ...
              name = string_arg(first)
              if not name then raise(error_table('first argument to redis.register_function must be a string')) end
              if type_(second) ~= 'function' then raise(error_table('second argument to redis.register_function must be a function')) end
              callback, flags = second, 0
            end
            if #name == 0 or find(name, '[^a-zA-Z0-9_]') then
              raise(error_table('Library names can only contain letters, numbers, or underscores(_) and must be at least one character long'))
            end
            if registered_names[name] then raise(error_table('Function already exists in the library')) end
            registered_names[name] = true
            registered[#registered + 1] = { name = name, description = description, callback = callback, flags = flags }
          end

          local library_api = {
            redis = protected({
              register_function = register_function,
              log = redis.log,
              LOG_DEBUG = redis.LOG_DEBUG, LOG_VERBOSE = redis.LOG_VERBOSE,
              LOG_NOTICE = redis.LOG_NOTICE, LOG_WARNING = redis.LOG_WARNING,
              REDIS_VERSION = redis.REDIS_VERSION, REDIS_VERSION_NUM = redis.REDIS_VERSION_NUM,
            }),
          }

          -- The state's library tables are read-only already (LuaBootstrap guards them, as Redis
          -- protects its globals recursively); _G is the environment itself.
          local loading = false -- while a library loads, its names resolve in library_api only

          local env, env_meta
          env_meta = {
            __index = function(_, name)
              if name == '_G' and not loading then return env end
              local value = rawget_(loading and library_api or G, name)
              if value == nil then
                raise("Script attempted to access nonexistent global variable '" .. tostring_(name) .. "'", 2)
              end
              return value
            end,
            __newindex = readonly,
            __pairs = function() return next_, loading and library_api or G, nil end,
          }
          env = setmetatable_({}, env_meta)
          env_meta.__metatable = __redis__guard(env)
          __redis__env = env

          -- Runs a compiled library with the load-time API: true and the registered functions, or
          -- false and the error as Redis's luaExtractErrorInformation words it.
          __redis__load_library = function(chunk)
            registered, registered_names = {}, {}
            loading = true
            local ok, err = pcall_(chunk)
            loading = false
            local list = registered
            registered, registered_names = nil, nil
            if ok then return true, list end
            if type_(err) == 'table' then
              local message = string_arg(rawget_(err, 'err'))
              if message then return false, message end
            end
            return false, 'ERR ' .. tostring_(err)
          end
        end
        """;
}
