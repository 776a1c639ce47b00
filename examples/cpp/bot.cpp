// A minimal Card Arena bot in C++ that plays any of the four games (Belote, Bauer, Barbu,
// Badugi). One file: upload it as it is (runtime "cpp" from the .cpp suffix), or zip this
// folder with its bot.toml. The platform compiles it once, in the sandbox, with
//     g++ -O2 -std=c++20 -static
// and nlohmann/json (Debian's nlohmann-json3-dev) available; see docs/runtimes.md.
//
// The protocol (docs/protocol.md): one JSON object per line on stdin, one per line on stdout.
//   hello -> answer {"type": "ready"}
//   act   -> answer {"id": <the act's id>, "action": <one of "legal">}
//   over  -> the game ended; the process is stopped.
// Debugging output goes to stderr (std::cerr): stdout is for protocol lines only.

#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

using json = nlohmann::json;

// Card text is rank + suit ("Td", "As"); rank order 2..9, T, J, Q, K, A. Returns -1 for an
// action that is not a single card ("pass", "trump:h", "draw:Kd,9s", "call", ...).
static int card_rank(const std::string& action) {
    static const std::string ranks = "23456789TJQKA";
    static const std::string suits = "shdc";
    if (action.size() != 2 || suits.find(action[1]) == std::string::npos) return -1;
    auto rank = ranks.find(action[0]);
    return rank == std::string::npos ? -1 : static_cast<int>(rank);
}

// One simple idea that is never illegal: when cards can be played, play the lowest one (keep
// the strong cards for later); otherwise take the first legal action (the list is sorted).
static std::string choose(const json& legal) {
    std::string best = legal.at(0).get<std::string>();
    int best_rank = card_rank(best);
    for (const auto& item : legal) {
        const auto action = item.get<std::string>();
        const int rank = card_rank(action);
        if (rank >= 0 && (best_rank < 0 || rank < best_rank)) {
            best = action;
            best_rank = rank;
        }
    }
    return best;
}

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        const json message = json::parse(line);
        const std::string type = message.at("type").get<std::string>();
        if (type == "hello") {
            std::cerr << "playing " << message.at("game").get<std::string>() << " in seat "
                      << message.at("seat").get<int>() << "\n";
            std::cout << json{{"type", "ready"}}.dump() << std::endl;  // endl flushes
        } else if (type == "act") {
            const json reply = {{"id", message.at("id")}, {"action", choose(message.at("legal"))}};
            std::cout << reply.dump() << std::endl;
        } else if (type == "over") {
            break;
        }
    }
    return 0;
}
