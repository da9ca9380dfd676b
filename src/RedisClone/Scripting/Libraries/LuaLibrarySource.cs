using KeraLua;

namespace RedisClone.Scripting.Libraries;

/// <summary>
/// Opens the four libraries Redis loads into every script state — cjson, cmsgpack, bit and struct —
/// as global, read-only tables: the C# functions do the work, and the Lua wrappers here raise their
/// errors with Redis's texts at the script's line.
/// </summary>
/// <remarks>
/// Redis 7 makes its library tables read only ("Attempt to modify a readonly table"); Lua 5.4 has
/// no such flag, so each global here is an empty proxy whose __index is the library and whose
/// __newindex raises that error (pairs() still walks the library through __pairs).
/// A script that tail-calls a library function (<c>return cjson.encode(x)</c>) keeps its frame, and
/// so its line in errors, because scripts are compiled without tail calls (<see cref="LuaTailCalls"/>).
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
        local error_, setmetatable_, next_, select_ = error, setmetatable, next, select

        -- A C# function answers true, results... or false, message. finish is tail-called by the
        -- wrappers, so it takes the wrapper's frame and level 2 is the script: the message gets the
        -- script's "user_script:N: " as luaL_error gives it in Redis.
        -- A third value asks for no position (errors Lua itself raises in Redis).
        local function finish(ok, ...)
          if ok then return ... end
          local message, positionless = ...
          error_(message, positionless and 0 or 2)
        end

        local function readonly(t)
          return setmetatable_({}, {
            __index = t,
            __newindex = function() error_('Attempt to modify a readonly table', 2) end,
            __pairs = function() return next_, t, nil end,
            __metatable = false,
          })
        end

        -- cjson: every table from cjson.new() has its own settings (a userdata the wrappers pass).
        do
          local config_, encode_, decode_, configure_ = __cjson_config, __cjson_encode, __cjson_decode, __cjson_configure
          __cjson_config, __cjson_encode, __cjson_decode, __cjson_configure = nil, nil, nil, nil
          local function new()
            local cfg = config_()
            local m = {}
            m.encode = function(...) return finish(encode_(cfg, ...)) end
            m.decode = function(...) return finish(decode_(cfg, ...)) end
            m.encode_sparse_array = function(...) return finish(configure_(cfg, 1, ...)) end
            m.encode_max_depth = function(...) return finish(configure_(cfg, 2, ...)) end
            m.decode_max_depth = function(...) return finish(configure_(cfg, 3, ...)) end
            m.encode_number_precision = function(...) return finish(configure_(cfg, 4, ...)) end
            m.encode_keep_buffer = function(...) return finish(configure_(cfg, 5, ...)) end
            m.encode_invalid_numbers = function(...) return finish(configure_(cfg, 6, ...)) end
            m.decode_invalid_numbers = function(...) return finish(configure_(cfg, 7, ...)) end
            m.new = new
            m.null = select_(2, decode_(cfg, 'null')) -- the NULL light userdata
            m._NAME = 'cjson'
            m._VERSION = '2.1.0'
            return m
          end
          cjson = readonly(new())
        end

        -- cmsgpack
        do
          local pack_, unpack_ = __cmsgpack_pack, __cmsgpack_unpack
          __cmsgpack_pack, __cmsgpack_unpack = nil, nil
          local m = {}
          m.pack = function(...) return finish(pack_(...)) end
          m.unpack = function(...) return finish(unpack_(0, ...)) end
          m.unpack_one = function(...) return finish(unpack_(1, ...)) end
          m.unpack_limit = function(...) return finish(unpack_(2, ...)) end
          m._NAME = 'cmsgpack'
          m._VERSION = 'lua-cmsgpack 0.4.0'
          m._COPYRIGHT = 'Copyright (C) 2012, Salvatore Sanfilippo'
          m._DESCRIPTION = 'MessagePack C implementation for Lua'
          cmsgpack = readonly(m)
        end

        -- bit (LuaBitOp): one C# function, the operation by number.
        do
          local bit_ = __bit
          __bit = nil
          local m = {}
          for op, name in ipairs({ 'tobit', 'bnot', 'band', 'bor', 'bxor', 'lshift', 'rshift', 'arshift', 'rol', 'ror', 'bswap', 'tohex' }) do
            m[name] = function(...) return finish(bit_(op, ...)) end
          end
          bit = readonly(m)
        end

        -- struct
        do
          local struct_ = __struct
          __struct = nil
          local m = {}
          m.pack = function(...) return finish(struct_(1, ...)) end
          m.unpack = function(...) return finish(struct_(2, ...)) end
          m.size = function(...) return finish(struct_(3, ...)) end
          struct = readonly(m)
        end
        """;
}
