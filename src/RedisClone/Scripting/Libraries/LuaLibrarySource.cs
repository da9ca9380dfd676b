using KeraLua;

namespace RedisClone.Scripting.Libraries;

/// <summary>
/// Opens the four libraries Redis loads into every script state — cjson, cmsgpack, bit and struct —
/// as global tables: the C# functions do the work, and the Lua wrappers here raise their
/// errors with Redis's texts at the script's line.
/// </summary>
/// <remarks>
/// The bootstrap then makes these tables read-only with the others, as Redis 7 does (see
/// <see cref="LuaBootstrap"/>). A script that tail-calls a library function
/// (<c>return cjson.encode(x)</c>) keeps its frame, and so its line in errors, because its
/// library tail calls are compiled as plain calls (<see cref="TailCalls"/>).
/// </remarks>
internal static class LuaLibrarySource
{
    /// <summary>Registers the C# primitives and runs the source; call on a new state before the bootstrap.</summary>
    public static void Open(Lua lua)
    {
        lua.Register("__cjson_config", LuaCJson.NewConfigFunction);
        lua.Register("__cjson_encode", LuaCJson.EncodeFunction);
        lua.Register("__cjson_decode", LuaCJson.DecodeFunction);
        lua.Register("__cjson_configure", LuaCJson.ConfigureFunction);
        lua.Register("__cmsgpack_pack", LuaCMsgPack.PackFunction);
        lua.Register("__cmsgpack_unpack", LuaCMsgPack.UnpackFunction);
        lua.Register("__bit", LuaBit.Function);
        lua.Register("__struct", LuaStruct.Function);
        if (lua.LoadString(Source, LuaBootstrap.ChunkName) != LuaStatus.OK || lua.PCall(0, 0, 0) != LuaStatus.OK)
            throw new InvalidOperationException("Lua libraries failed to load: " + lua.ToString(-1, false));
    }

    private const string Source = """
        local error_, select_ = error, select
        local getinfo, tunpack = debug.getinfo, table.unpack

        -- A C# function answers true, result (or true, n, {results} for several) on success, and
        -- false, message, positionless, argument on failure. raise is called by the wrapper as a
        -- statement, never in tail position, so the wrapper's frame is there to name: an argument
        -- error names the function as the caller wrote it, as luaL_argerror does ('?' when
        -- pcall calls it, the local's name for an alias; a method call counts self as #0).
        -- Level 3 is the wrapper's caller, so the message gets the script's "user_script:N: " as
        -- luaL_error gives it in Redis; positionless errors are the ones Lua raises itself.
        local function raise(message, positionless, argument)
          if argument then
            local info = getinfo(2, 'n')
            local name = info and info.name or '?'
            if info and info.namewhat == 'method' then
              argument = argument - 1
              if argument == 0 then error_("calling '" .. name .. "' on bad self (" .. message .. ')', 3) end
            end
            message = 'bad argument #' .. argument .. " to '" .. name .. "' (" .. message .. ')'
          end
          error_(message, positionless and 0 or 3)
        end

        -- A wrapper for a one-result function that takes x (a configuration or an operation) first.
        local function one(f, x)
          return function(...)
            local ok, r, positionless, argument = f(x, ...)
            if ok then return r end
            raise(r, positionless, argument)
          end
        end

        -- The same for a function with any number of results.
        local function many(f, x)
          return function(...)
            local ok, n, results, argument = f(x, ...)
            if ok then return tunpack(results, 1, n) end
            raise(n, results, argument)
          end
        end

        -- cjson: every table from cjson.new() has its own settings (a userdata the wrappers pass).
        do
          local config_, encode_, decode_, configure_ = __cjson_config, __cjson_encode, __cjson_decode, __cjson_configure
          __cjson_config, __cjson_encode, __cjson_decode, __cjson_configure = nil, nil, nil, nil
          local function option(cfg, number)
            return function(...)
              local ok, r, positionless, argument = configure_(cfg, number, ...)
              if ok then return r end
              raise(r, positionless, argument)
            end
          end
          -- encode_sparse_array answers three settings.
          local function sparse(cfg)
            return function(...)
              local ok, a, b, c = configure_(cfg, 1, ...)
              if ok then return a, b, c end
              raise(a, b, c)
            end
          end
          local function new()
            local cfg = config_()
            local m = {}
            m.encode = one(encode_, cfg)
            m.decode = one(decode_, cfg)
            m.encode_sparse_array = sparse(cfg)
            m.encode_max_depth = option(cfg, 2)
            m.decode_max_depth = option(cfg, 3)
            m.encode_number_precision = option(cfg, 4)
            m.encode_keep_buffer = option(cfg, 5)
            m.encode_invalid_numbers = option(cfg, 6)
            m.decode_invalid_numbers = option(cfg, 7)
            m.new = new
            m.null = select_(2, decode_(cfg, 'null')) -- the NULL light userdata
            m._NAME = 'cjson'
            m._VERSION = '2.1.0'
            return m
          end
          cjson = (new())
        end

        -- cmsgpack
        do
          local pack_, unpack_ = __cmsgpack_pack, __cmsgpack_unpack
          __cmsgpack_pack, __cmsgpack_unpack = nil, nil
          local m = {}
          m.pack = function(...)
            local ok, r, positionless, argument = pack_(...)
            if ok then return r end
            raise(r, positionless, argument)
          end
          m.unpack = many(unpack_, 0)
          m.unpack_one = many(unpack_, 1)
          m.unpack_limit = many(unpack_, 2)
          m._NAME = 'cmsgpack'
          m._VERSION = 'lua-cmsgpack 0.4.0'
          m._COPYRIGHT = 'Copyright (C) 2012, Salvatore Sanfilippo'
          m._DESCRIPTION = 'MessagePack C implementation for Lua'
          cmsgpack = (m)
        end

        -- bit (LuaBitOp): one C# function, the operation by number.
        do
          local bit_ = __bit
          __bit = nil
          local m = {}
          for op, name in ipairs({ 'tobit', 'bnot', 'band', 'bor', 'bxor', 'lshift', 'rshift', 'arshift', 'rol', 'ror', 'bswap', 'tohex' }) do
            m[name] = one(bit_, op)
          end
          bit = (m)
        end

        -- struct
        do
          local struct_ = __struct
          __struct = nil
          local m = {}
          m.pack = one(struct_, 1)
          m.unpack = many(struct_, 2)
          m.size = one(struct_, 3)
          struct = (m)
        end
        """;
}
