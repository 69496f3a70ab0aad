-- A session of Ardour run headless for the tests, driven from standard input.
--
--   ardour7-lua -X ardour_session.lua SESSION_DIRECTORY SNAPSHOT
--
-- Opens the session on the JACK backend (the server JACK_DEFAULT_SERVER
-- names), follows JACK's transport ("external sync", with the transport
-- master the user configuration names) and is its timebase master
-- ("jack-time-master"), then reads one command a line and answers each with
-- one line that starts with "@ardour ":
--
--   roll               the transport rolls          @ardour ok
--   stop               the transport stops          @ardour ok
--   locate FRAME       the transport moves to FRAME @ardour ok
--                      (and keeps rolling if it was)
--   position           Ardour's own position        @ardour position FRAME ROLLING
--                      (its transport sample; ROLLING 1 or 0)
--   quit, or the end   the session closes
--
-- A request is answered once Ardour has queued it, not once it is done: the
-- tests wait for its effect. "@ardour ready RATE" says the session is open;
-- "@ardour failed WHY" that it is not. Ardour prints much else on its
-- standard output, hence the prefix.

local function say(line)
    print("@ardour " .. line)
    io.stdout:flush()
end

local directory, snapshot = arg[1], arg[2]
if not directory or not snapshot then
    say("failed usage: ardour_session.lua SESSION_DIRECTORY SNAPSHOT")
    return
end

if not AudioEngine:set_backend("JACK", "ardour", "") then
    say("failed no JACK backend")
    return
end
local session = load_session(directory, snapshot)
if not session then
    say("failed cannot load " .. directory)
    return
end
session:cfg():set_jack_time_master(true)
session:cfg():set_external_sync(true)
if not session:cfg():get_external_sync() or not session:cfg():get_jack_time_master() or not ARDOUR.config():get_clicking() then
    say("failed the session does not sync to JACK, lead its timebase and click")
    return
end
say("ready " .. session:nominal_sample_rate())

local source = ARDOUR.TransportRequestSource.TRS_UI
for line in io.lines() do
    local command, operand = line:match("^(%S+)%s*(%S*)$")
    if command == "roll" then
        session:request_roll(source)
        say("ok")
    elseif command == "stop" then
        session:request_stop(false, false, source)
        say("ok")
    elseif command == "locate" and tonumber(operand) then
        session:request_locate(math.floor(tonumber(operand)), false, ARDOUR.LocateTransportDisposition.RollIfAppropriate, source)
        say("ok")
    elseif command == "position" then
        say("position " .. session:transport_sample() .. " " .. (session:transport_rolling() and "1" or "0"))
    elseif command == "quit" then
        break
    else
        say("unknown " .. line)
    end
end
