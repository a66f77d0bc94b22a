"""Add to the bundled translation memories the categories the sample's questions use that none of them had
(issue 18: 271 questions per language inserted the English label), then let scripts/grammar_memory.py give
them their gender and case forms from its tables, as it does for the other categories.

Idempotent: a category a memory already has is left as it is. Run from the repository root::

    .venv/bin/python scripts/missing_categories.py
"""

from __future__ import annotations

import csv
import json

import grammar_memory

LEXICON = "mgqa_platform/data/category_lexicon.csv"
KEYS = """administrative_region stream water river retail drain rail apartments peak speed_camera fire_station
    water_point internet_cafe department_store seafood viewpoint second_hand shelter tyres wine nature_reserve
    paint fountain coffee public_transport_station garden railway_crossing motorcycle tree theme_park""".split()

#: The plural labels of the categories in KEYS order, one per line, by language.
TEXTS = {
    "spa": """regiones administrativas|arroyos|masas de agua|ríos|edificios de comercio minorista
        |canales de desagüe|líneas ferroviarias|edificios de apartamentos|picos|radares de velocidad
        |estaciones de bomberos|puntos de abastecimiento de agua|cibercafés|grandes almacenes|pescaderías
        |miradores|tiendas de segunda mano|refugios|tiendas de neumáticos|tiendas de vinos
        |reservas naturales|tiendas de pinturas|fuentes|tiendas de café|estaciones de transporte público
        |jardines|cruces ferroviarios|concesionarios de motos|árboles|parques temáticos""",
    "por": """regiões administrativas|riachos|corpos d'água|rios|edifícios comerciais|canais de drenagem
        |linhas ferroviárias|prédios de apartamentos|picos|radares de velocidade|quartéis de bombeiros
        |pontos de abastecimento de água|cibercafés|lojas de departamentos|peixarias|mirantes|brechós
        |abrigos|lojas de pneus|lojas de vinhos|reservas naturais|lojas de tintas|fontes|lojas de café
        |estações de transporte público|jardins|cruzamentos ferroviários|concessionárias de motos|árvores
        |parques temáticos""",
    "ita": """regioni amministrative|ruscelli|specchi d'acqua|fiumi|edifici commerciali|canali di scolo
        |linee ferroviarie|condomini|cime|autovelox|caserme dei vigili del fuoco
        |punti di approvvigionamento idrico|internet point|grandi magazzini|pescherie|punti panoramici
        |negozi dell'usato|rifugi|gommisti|enoteche|riserve naturali|colorifici|fontane|negozi di caffè
        |stazioni del trasporto pubblico|giardini|attraversamenti ferroviari|concessionari di moto|alberi
        |parchi a tema""",
    "fra": """régions administratives|ruisseaux|plans d'eau|rivières|bâtiments commerciaux
        |fossés de drainage|lignes ferroviaires|immeubles d'habitation|sommets|radars automatiques
        |casernes de pompiers|points de ravitaillement en eau|cybercafés|grands magasins|poissonneries
        |points de vue|magasins d'occasion|abris|magasins de pneus|cavistes|réserves naturelles
        |magasins de peinture|fontaines|magasins de café|stations de transport public|jardins
        |traversées de voies ferrées|concessionnaires de motos|arbres|parcs à thème""",
    "deu": """Verwaltungsregionen|Bäche|Gewässer|Flüsse|Einzelhandelsgebäude|Entwässerungsgräben|Bahnlinien
        |Mehrfamilienhäuser|Gipfel|Blitzer|Feuerwachen|Wasserentnahmestellen|Internetcafés|Kaufhäuser
        |Fischgeschäfte|Aussichtspunkte|Secondhandläden|Unterstände|Reifenhändler|Weinhandlungen
        |Naturschutzgebiete|Farbengeschäfte|Brunnen|Kaffeegeschäfte|Nahverkehrsstationen|Gärten
        |Gleisübergänge|Motorradhändler|Bäume|Freizeitparks""",
    "rus": """административные регионы|ручьи|водоёмы|реки|торговые здания|дренажные канавы
        |железнодорожные линии|многоквартирные дома|вершины|камеры контроля скорости|пожарные части
        |пункты водоснабжения|интернет-кафе|универмаги|магазины морепродуктов|смотровые площадки
        |комиссионные магазины|укрытия|шинные магазины|винные магазины|природные заповедники
        |магазины красок|фонтаны|магазины кофе|станции общественного транспорта|сады
        |железнодорожные переходы|мотосалоны|деревья|тематические парки""",
    "ell": """διοικητικές περιφέρειες|ρυάκια|υδάτινα σώματα|ποτάμια|κτίρια λιανικού εμπορίου
        |αποστραγγιστικά κανάλια|σιδηροδρομικές γραμμές|πολυκατοικίες|κορυφές|κάμερες ελέγχου ταχύτητας
        |πυροσβεστικοί σταθμοί|σημεία υδροληψίας|ίντερνετ καφέ|πολυκαταστήματα|ιχθυοπωλεία|σημεία θέας
        |καταστήματα μεταχειρισμένων ειδών|στέγαστρα|καταστήματα ελαστικών|καταστήματα κρασιού
        |φυσικά καταφύγια|καταστήματα χρωμάτων|σιντριβάνια|καταστήματα καφέ
        |σταθμοί δημόσιων συγκοινωνιών|κήποι|σιδηροδρομικές διαβάσεις|αντιπροσωπείες μοτοσικλετών|δέντρα
        |θεματικά πάρκα""",
    "kat": """ადმინისტრაციული ერთეულები|ნაკადულები|წყალსატევები|მდინარეები|სავაჭრო შენობები
        |სადრენაჟო არხები|სარკინიგზო ხაზები|საცხოვრებელი კორპუსები|მწვერვალები|სიჩქარის კამერები
        |სახანძრო სადგურები|წყლის წერტილები|ინტერნეტ-კაფეები|უნივერმაღები
        |ზღვის პროდუქტების მაღაზიები|გადასახედები|მეორადი ნივთების მაღაზიები|თავშესაფრები
        |საბურავების მაღაზიები|ღვინის მაღაზიები|ნაკრძალები|საღებავების მაღაზიები|შადრევნები
        |ყავის მაღაზიები|საზოგადოებრივი ტრანსპორტის სადგურები|ბაღები|რკინიგზის გადასასვლელები
        |მოტოციკლების სალონები|ხეები|თემატური პარკები""",
    "urd": """انتظامی علاقے|ندی نالے|آبی ذخائر|دریا|پرچون کی عمارتیں|نکاسی آب کے نالے|ریلوے لائنیں
        |اپارٹمنٹ کی عمارتیں|چوٹیاں|اسپیڈ کیمرے|فائر اسٹیشن|پانی بھرنے کے مقامات|انٹرنیٹ کیفے
        |ڈیپارٹمنٹل اسٹور|سمندری غذا کی دکانیں|نظارے کے مقامات|پرانے سامان کی دکانیں|پناہ گاہیں
        |ٹائروں کی دکانیں|شراب کی دکانیں|قدرتی محفوظ علاقے|پینٹ کی دکانیں|فوارے|کافی کی دکانیں
        |پبلک ٹرانسپورٹ اسٹیشن|باغات|ریلوے پھاٹک|موٹر سائیکل ڈیلر|درخت|تھیم پارک""",
    "bul": """административни области|потоци|водоеми|реки|търговски сгради|отводнителни канали
        |железопътни линии|жилищни блокове|върхове|камери за скорост|пожарни служби
        |водоснабдителни пунктове|интернет кафенета|универсални магазини|магазини за морски дарове
        |панорамни площадки|магазини за употребявани стоки|заслони|магазини за гуми|магазини за вино
        |природни резервати|магазини за бои|фонтани|магазини за кафе|станции на обществения транспорт
        |градини|железопътни прелези|мотосалони|дървета|тематични паркове""",
    "jpn": """行政区域|小川|水域|河川|小売店舗の建物|排水路|鉄道路線|集合住宅|山頂|速度取締カメラ|消防署
        |給水地点|インターネットカフェ|百貨店|鮮魚店|展望所|中古品店|シェルター|タイヤ店|ワインショップ
        |自然保護区|塗料店|噴水|コーヒー豆店|公共交通機関の駅|庭園|線路の横断地点|オートバイ販売店|樹木
        |テーマパーク""",
    "zho": """行政区|溪流|水体|河流|零售建筑|排水渠|铁路线|公寓楼|山峰|测速摄像头|消防站|取水点|网吧
        |百货商店|海鲜店|观景点|二手商店|避难所|轮胎店|葡萄酒商店|自然保护区|油漆店|喷泉|咖啡豆店
        |公共交通站|花园|铁路穿越点|摩托车经销店|树木|主题公园""",
    "tur": """idari bölgeler|dereler|su kütleleri|nehirler|perakende binaları|drenaj kanalları
        |demiryolu hatları|apartmanlar|zirveler|hız kameraları|itfaiye istasyonları|su noktaları
        |internet kafeler|büyük mağazalar|balıkçılar|seyir noktaları|ikinci el dükkânları|barınaklar
        |lastikçiler|şarap dükkânları|doğa koruma alanları|boya dükkânları|çeşmeler|kahve dükkânları
        |toplu taşıma istasyonları|bahçeler|demiryolu geçitleri|motosiklet bayileri|ağaçlar
        |tema parkları""",
    "ron": """regiuni administrative|pâraie|corpuri de apă|râuri|clădiri comerciale|canale de drenaj
        |linii de cale ferată|blocuri de locuințe|vârfuri|radare fixe|remize de pompieri
        |puncte de alimentare cu apă|internet cafe-uri|magazine universale|pescării|puncte de belvedere
        |magazine second-hand|adăposturi|magazine de anvelope|magazine de vinuri|rezervații naturale
        |magazine de vopsele|fântâni arteziene|magazine de cafea|stații de transport public|grădini
        |treceri peste calea ferată|reprezentanțe de motociclete|copaci|parcuri tematice""",
    "sqi": """njësi administrative|përrenj|trupa ujore|lumenj|ndërtesa tregtare|kanale kullimi
        |linja hekurudhore|pallate banimi|maja|kamera shpejtësie|stacione zjarrfikëse
        |pika furnizimi me ujë|internet kafe|dyqane të mëdha|dyqane peshku|pika panoramike
        |dyqane të dorës së dytë|strehëza|dyqane gomash|dyqane vere|rezervate natyrore|dyqane bojërash
        |shatërvanë|dyqane kafeje|stacione të transportit publik|kopshte|kalime hekurudhore
        |pika shitjeje motoçikletash|pemë|parqe tematike""",
    "vie": """đơn vị hành chính|suối|vùng nước|sông|tòa nhà bán lẻ|mương thoát nước|tuyến đường sắt
        |tòa nhà chung cư|đỉnh núi|camera bắn tốc độ|trạm cứu hỏa|điểm cấp nước|quán net
        |cửa hàng bách hóa tổng hợp|cửa hàng hải sản|điểm ngắm cảnh|cửa hàng đồ cũ|nơi trú ẩn
        |cửa hàng lốp xe|cửa hàng rượu vang|khu bảo tồn thiên nhiên|cửa hàng sơn|đài phun nước
        |cửa hàng cà phê hạt|trạm giao thông công cộng|vườn|điểm giao cắt đường sắt|đại lý xe máy|cây
        |công viên chủ đề""",
}


def labels(lang: str) -> dict[str, str]:
    """The category labels of a language by category key (TEXTS split on ``|``)."""
    texts = [" ".join(t.split()) for t in TEXTS[lang].split("|")]
    return dict(zip(KEYS, texts, strict=True))


def english_plurals(path: str = LEXICON) -> dict[str, str]:
    """The English plural label of every category of the lexicon."""
    with open(path, encoding="utf-8") as f:
        return {row["category"]: row["plural"] for row in csv.DictReader(f)}


def main() -> None:
    """Add the missing categories to every memory, then run grammar_memory on the languages it handles."""
    english = english_plurals()
    for lang in TEXTS:
        path = grammar_memory.TM_DIR / f"{lang}.json"
        tm = json.loads(path.read_text(encoding="utf-8"))
        for key, text in labels(lang).items():
            tm["categories"].setdefault(key, {"source": english[key], "text": text})
        path.write_text(
            json.dumps(tm, ensure_ascii=False, indent=1, sort_keys=True) + "\n", "utf-8"
        )
    grammar_memory.main(sorted(grammar_memory.LANGS))


if __name__ == "__main__":
    main()
