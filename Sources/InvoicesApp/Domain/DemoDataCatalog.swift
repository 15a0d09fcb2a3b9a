import Foundation

/// The raw material of the demo data: per country, names, cities with postcodes, street
/// patterns, company forms and a home currency.
struct DemoCountry: Sendable {
    let name: String
    let currency: String
    let domain: String
    let firstNames: [String]
    let surnames: [String]
    /// (postcode, city)
    let cities: [(String, String)]
    /// `#` is replaced by a house number, `@` by a street name.
    let streetPattern: String
    let streets: [String]
    let companyForms: [String]
    let trades: [String]
    /// How often clients come from here.
    let weight: Int
}

enum DemoDataCatalog {
    static let countries: [DemoCountry] = [
        DemoCountry(
            name: "France", currency: "EUR", domain: "fr",
            firstNames: ["Camille", "Julien", "Léa", "Hugo", "Chloé", "Antoine", "Manon", "Louis", "Inès", "Théo"],
            surnames: ["Martin", "Bernard", "Dubois", "Moreau", "Laurent", "Lefèvre", "Girard", "Mercier", "Fontaine", "Chevalier"],
            cities: [("75003", "Paris"), ("69002", "Lyon"), ("13001", "Marseille"), ("33000", "Bordeaux"), ("59000", "Lille"), ("44000", "Nantes")],
            streetPattern: "# @", streets: ["rue de la République", "avenue Jean Jaurès", "boulevard Voltaire", "rue des Lilas", "quai Saint-Antoine"],
            companyForms: ["SARL", "SAS", "EURL"], trades: ["Conseil", "Design", "Transports", "Boulangerie", "Architectes", "Informatique"],
            weight: 18),
        DemoCountry(
            name: "Germany", currency: "EUR", domain: "de",
            firstNames: ["Lukas", "Anna", "Felix", "Marie", "Jonas", "Sophie", "Leon", "Hannah", "Paul", "Lena"],
            surnames: ["Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Hoffmann", "Schäfer"],
            cities: [("10115", "Berlin"), ("80331", "München"), ("20095", "Hamburg"), ("50667", "Köln"), ("60311", "Frankfurt am Main"), ("70173", "Stuttgart")],
            streetPattern: "@ #", streets: ["Hauptstraße", "Bahnhofstraße", "Gartenweg", "Lindenallee", "Schillerstraße"],
            companyForms: ["GmbH", "AG", "KG"], trades: ["Beratung", "Maschinenbau", "Logistik", "Software", "Medien", "Elektrotechnik"],
            weight: 18),
        DemoCountry(
            name: "Spain", currency: "EUR", domain: "es",
            firstNames: ["Lucía", "Hugo", "Martina", "Pablo", "Sofía", "Álvaro", "Carmen", "Diego"],
            surnames: ["García", "Fernández", "López", "Martínez", "Sánchez", "Romero", "Navarro", "Torres"],
            cities: [("28013", "Madrid"), ("08002", "Barcelona"), ("46001", "Valencia"), ("41004", "Sevilla")],
            streetPattern: "@ #", streets: ["Calle Mayor", "Calle de Alcalá", "Avenida Diagonal", "Calle del Prado"],
            companyForms: ["S.L.", "S.A."], trades: ["Consultores", "Diseño", "Distribución", "Ingeniería"],
            weight: 8),
        DemoCountry(
            name: "Italy", currency: "EUR", domain: "it",
            firstNames: ["Giulia", "Francesco", "Sofia", "Alessandro", "Aurora", "Lorenzo", "Chiara", "Matteo"],
            surnames: ["Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano", "Colombo", "Ricci"],
            cities: [("00184", "Roma"), ("20121", "Milano"), ("10121", "Torino"), ("40121", "Bologna")],
            streetPattern: "@ #", streets: ["Via Roma", "Via Garibaldi", "Corso Italia", "Via Dante"],
            companyForms: ["S.r.l.", "S.p.A."], trades: ["Consulenza", "Design", "Trasporti", "Informatica"],
            weight: 8),
        DemoCountry(
            name: "Netherlands", currency: "EUR", domain: "nl",
            firstNames: ["Daan", "Emma", "Sem", "Julia", "Lucas", "Tess"],
            surnames: ["de Jong", "Jansen", "de Vries", "van den Berg", "Bakker", "Visser"],
            cities: [("1015 CJ", "Amsterdam"), ("3011 AD", "Rotterdam"), ("3511 LX", "Utrecht")],
            streetPattern: "@ #", streets: ["Keizersgracht", "Prinsengracht", "Oudegracht", "Coolsingel"],
            companyForms: ["B.V."], trades: ["Advies", "Ontwerp", "Logistiek", "Software"],
            weight: 6),
        DemoCountry(
            name: "United Kingdom", currency: "GBP", domain: "co.uk",
            firstNames: ["Oliver", "Amelia", "George", "Isla", "Harry", "Ava", "Jack", "Emily"],
            surnames: ["Smith", "Jones", "Taylor", "Brown", "Williams", "Wilson", "Evans", "Thomas"],
            cities: [("EC1A 1BB", "London"), ("M1 1AE", "Manchester"), ("EH1 1YZ", "Edinburgh"), ("BS1 4DJ", "Bristol")],
            streetPattern: "# @", streets: ["High Street", "Station Road", "Church Lane", "Victoria Road"],
            companyForms: ["Ltd", "LLP"], trades: ["Consulting", "Design", "Logistics", "Software", "Media"],
            weight: 14),
        DemoCountry(
            name: "United States", currency: "USD", domain: "com",
            firstNames: ["James", "Olivia", "Liam", "Emma", "Noah", "Mia", "Ethan", "Harper"],
            surnames: ["Johnson", "Miller", "Davis", "Garcia", "Rodriguez", "Anderson", "Clark", "Lewis"],
            cities: [("10001", "New York"), ("94103", "San Francisco"), ("60601", "Chicago"), ("78701", "Austin"), ("98101", "Seattle"), ("02108", "Boston")],
            streetPattern: "# @", streets: ["Market Street", "Main Street", "Broadway", "Congress Avenue", "Pine Street"],
            companyForms: ["Inc.", "LLC"], trades: ["Consulting", "Analytics", "Labs", "Software", "Studios", "Supply"],
            weight: 14),
        DemoCountry(
            name: "Japan", currency: "JPY", domain: "jp",
            firstNames: ["Haruto", "Yui", "Sota", "Hina", "Ren", "Aoi"],
            surnames: ["Sato", "Suzuki", "Takahashi", "Tanaka", "Watanabe", "Ito", "Yamamoto", "Nakamura"],
            cities: [("100-0005", "Tokyo"), ("530-0001", "Osaka"), ("604-8005", "Kyoto"), ("220-0012", "Yokohama")],
            streetPattern: "@ #", streets: ["Marunouchi 1-chome", "Umeda 2-chome", "Shijo-dori", "Minatomirai 3-chome"],
            companyForms: ["K.K.", "G.K."], trades: ["Trading", "Electronics", "Design", "Systems"],
            weight: 7),
        DemoCountry(
            name: "Switzerland", currency: "CHF", domain: "ch",
            firstNames: ["Noah", "Mia", "Luca", "Lea", "Elias", "Lina"],
            surnames: ["Meier", "Keller", "Huber", "Brunner", "Gerber", "Baumann", "Frei", "Zürcher"],
            cities: [("8001", "Zürich"), ("1201", "Genève"), ("4051", "Basel"), ("3011", "Bern"), ("1003", "Lausanne")],
            streetPattern: "@ #", streets: ["Bahnhofstrasse", "Rue du Rhône", "Freie Strasse", "Marktgasse"],
            companyForms: ["AG", "GmbH", "SA"], trades: ["Treuhand", "Uhren", "Pharma", "Informatik"],
            weight: 7),
    ]

    static let notes = [
        "Thank you for your business.",
        "Payment by bank transfer within the terms, please quote the invoice number.",
        "Includes travel expenses.",
        "Second instalment of three.",
        "Maintenance contract, quarterly.",
        "Rush order surcharge included.",
    ]

    /// Payment terms in days; 30 is the most common.
    static let terms = [14, 30, 30, 30, 45, 60]

    /// The currencies a client may also be invoiced in, beside its home currency.
    static let foreignCurrencies = ["EUR", "USD", "GBP", "CHF", "JPY"]

    /// What demo invoice lines are for.
    static let services = ["Consulting", "Design work", "Software development", "Project management", "Travel expenses",
                           "Licence fee", "Support contract", "Workshop", "Hosting, one year", "Translation"]

    /// Quantities of demo lines: mostly whole, some hours and halves.
    static let quantities: [Decimal] = [1, 1, 1, 2, 3, 5, 10, Decimal(5) / 10, Decimal(15) / 10, Decimal(75) / 10, 12]

    /// A usual VAT or sales tax rate, in percent, by currency.
    static let taxRates: [String: Decimal] = ["EUR": 19, "CHF": Decimal(81) / 10, "GBP": 20, "JPY": 10,
                                              "USD": 0, "SEK": 25, "DKK": 25, "NOK": 25, "PLN": 23, "CZK": 21]
}
