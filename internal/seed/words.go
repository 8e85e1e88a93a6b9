package seed

// Small embedded vocabularies for the text-like generators. They are invented for this tool and only
// need to look plausible; every entry is ASCII so that byte-sized text is exact.

var firstNames = []string{
	"Ada", "Alan", "Amara", "Ana", "Arjun", "Ben", "Bruno", "Carla", "Chen", "Chloe",
	"Dara", "David", "Elena", "Emeka", "Eva", "Farah", "Felix", "Grace", "Hana", "Hugo",
	"Ines", "Ivan", "Jonas", "Julia", "Kai", "Kenji", "Lara", "Leo", "Lina", "Luca",
	"Maya", "Mateo", "Mei", "Nadia", "Nikhil", "Nora", "Omar", "Olga", "Pablo", "Priya",
	"Quinn", "Rafael", "Rosa", "Sam", "Sara", "Tariq", "Tess", "Uma", "Victor", "Wen",
	"Xavier", "Yara", "Yusuf", "Zara", "Zoe", "Iris", "Milo", "Noah", "Ruth", "Theo",
}

var lastNames = []string{
	"Abara", "Berg", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia", "Haddad", "Ito", "Jensen",
	"Kowalski", "Larsen", "Mendes", "Nakamura", "Okafor", "Petrov", "Quint", "Rossi", "Silva", "Tanaka",
	"Ueda", "Varga", "Weber", "Xu", "Yilmaz", "Zhang", "Novak", "Moreau", "Lindqvist", "Kim",
	"Horvat", "Gupta", "Fontaine", "Evans", "Diaz", "Chowdhury", "Bauer", "Alvarez", "Ricci", "Sato",
}

var emailDomains = []string{"example.com", "example.org", "example.net", "mail.example", "corp.example"}

var words = []string{
	"able", "acre", "amber", "anchor", "apple", "arrow", "atlas", "autumn", "badge", "basin",
	"beacon", "birch", "blade", "bloom", "bold", "breeze", "brick", "bridge", "bright", "cable",
	"canal", "candle", "canvas", "carbon", "cedar", "chalk", "charm", "cider", "circle", "clay",
	"cliff", "cloud", "clover", "coast", "comet", "copper", "coral", "cotton", "crane", "crisp",
	"crown", "crystal", "dawn", "delta", "desert", "drift", "dune", "eagle", "echo", "ember",
	"fable", "falcon", "feather", "fern", "field", "flint", "forest", "frost", "garden", "gentle",
	"glacier", "glow", "granite", "grove", "harbor", "hazel", "heron", "hollow", "honey", "island",
	"ivory", "jade", "jasper", "juniper", "kettle", "lantern", "laurel", "lemon", "linen", "lotus",
	"maple", "marble", "meadow", "mellow", "mint", "mist", "moss", "nectar", "noble", "north",
	"oak", "ocean", "olive", "onyx", "orbit", "orchid", "pebble", "pepper", "pine", "planet",
	"plume", "prairie", "quartz", "quiet", "rain", "raven", "reed", "ridge", "river", "rocket",
	"saffron", "sage", "sand", "shadow", "silver", "slate", "spark", "spring", "spruce", "stone",
	"storm", "summit", "swift", "thistle", "thunder", "tide", "timber", "topaz", "trail", "tulip",
	"valley", "velvet", "violet", "willow", "winter", "wren", "yarrow", "zenith", "zephyr", "harvest",
}

var cities = []string{
	"Amsterdam", "Athens", "Auckland", "Austin", "Bangalore", "Barcelona", "Berlin", "Bogota", "Boston",
	"Cairo", "Cape Town", "Chicago", "Copenhagen", "Dublin", "Edinburgh", "Helsinki", "Istanbul",
	"Jakarta", "Lagos", "Lima", "Lisbon", "London", "Madrid", "Melbourne", "Mexico City", "Milan",
	"Montreal", "Mumbai", "Nairobi", "Osaka", "Oslo", "Paris", "Prague", "Seattle", "Seoul",
	"Singapore", "Stockholm", "Sydney", "Taipei", "Tokyo", "Toronto", "Vienna", "Warsaw", "Zurich",
}

var countries = []string{
	"Argentina", "Australia", "Austria", "Brazil", "Canada", "Chile", "China", "Colombia", "Denmark",
	"Egypt", "Finland", "France", "Germany", "Greece", "India", "Indonesia", "Ireland", "Italy", "Japan",
	"Kenya", "Mexico", "Netherlands", "New Zealand", "Nigeria", "Norway", "Peru", "Poland", "Portugal",
	"Singapore", "South Africa", "South Korea", "Spain", "Sweden", "Switzerland", "Turkey",
	"United Kingdom", "United States",
}

// Vocabulary is the number of distinct values a generator draws from when it has a fixed list
// (city, country), 0 when its values are unbounded (names and words carry a suffix). The estimator
// sizes equality filters with it: a cardinality of 40 over 44 cities, each of the 40 values drawn
// from the list, holds about 26 distinct cities.
func Vocabulary(gen string) int {
	switch gen {
	case "city":
		return len(cities)
	case "country":
		return len(countries)
	}
	return 0
}
