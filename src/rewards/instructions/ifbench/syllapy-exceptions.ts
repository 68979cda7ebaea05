/**
 * The words of syllapy's dictionary (syllapy 0.8.0, `syllapy/data.csv`, MIT) whose syllable count
 * differs from what its rules compute (syllables.ts), by count: with these, the rules reproduce the
 * dictionary on all of its 6,392 entries. Generated once from the package; not edited by hand.
 */
export const SYLLAPY_EXCEPTIONS: Readonly<Record<number, string>> = {
  1:
    "added african-american aged aisle and\\/or armed asked babes based bigger biggest bombing " +
    "bytes cached called caused centres changed changing charged charles checked closed " +
    "closely closest clothes codes comes dancing dates dining drives dropped earned failed " +
    "faster filed files filled firmly fixed forced formed framed frames fucked full-time " +
    "funding games genes getting gives giving gloves grabbed grades greatest guides harder " +
    "having helped high-tech higher highest holes homes james joined jokes jones killed lakes " +
    "larger largest launched learned leaves liked lines linked lived lives logged long-term " +
    "longer looked loved loves makes marked melted miles missed mixed modes moved moves named " +
    "names nearer nearest nodded nodes notes ones owned passed phones picked placed planned " +
    "plates pleased priced printed putting quotes raised rates reached roles roughly rubbed " +
    "rules safely sales saved scared scenes scores screeched sealed seemed served serves " +
    "shared shares sharply shaved shinning shipped shooting short-term showed sides signed " +
    "sites sized skilled slightly slipped smaller smallest so-called softly specials spending " +
    "stared starting states stepped stones stopped stored stores stronger styles suites " +
    "t-shirt takes tales testing themes tightly times tired tones tracked trading trained " +
    "treated turned types used using viewed votes voting wales waves well-known worked " +
    "wrapped writes",
  2:
    "achieved acquired actively addressed advanced agree alleged allowed announced approved " +
    "argue arrived assumed attached awesome balanced barely baseball basement being believed " +
    "believes besides beyond bias brian business buyer buying cafe captured careful carefully " +
    "centre chaos charlie chile cleveland client coffee combined compared compiled completely " +
    "composed concerned confirmed constantly contained controlled convened convinced cookie " +
    "correctly covered create cruel declared defender defined degree depending depressed " +
    "derived described designed desired detailed dial diet discussed doing driveway dual " +
    "dying elsewhere engaged enhanced equipped evening every exclaimed existing expected " +
    "exposed falsehood falsehoods fastened featured finished firefox fireplace firewall fluid " +
    "flying focused forecast forehead framework fuel gateway genre giant going grateful " +
    "guideline happened homeland homeless homework household housewares improved including " +
    "increased induced informed inspired installed invented investor involved involvement " +
    "ireland islamic issue jose largely lately layer layers layout legally licensed lifestyle " +
    "lifetime likely likewise lion listener lonely louis lovely loyal lying machines managed " +
    "managing marie maybe mayor measured merely michelle middle-class movement movie mpeg " +
    "nashville nike notebook noticed observed occurred offender old-fashioned opened openly " +
    "opposed ordered ourselves partially paying peaceful perceived performer pictured pierre " +
    "pipeline placement player playing poem poems poet powered precisely preferred prepared " +
    "prior privately processing produced programmes progressed promised properly proposed " +
    "purchased pursue quiet rapidly rarely react real received recently redeemed reduced " +
    "referred refused released remaining removed replaced reporting required rescue " +
    "researcher reserved retailer retired revised riot routinely royal ruin ryan safety " +
    "saying scheduled science secured seeing seemingly selected self-esteem severely " +
    "shareware sidewalk skiing socially solely someday somehow something sometime sometimes " +
    "somewhat somewhere spokesman statement statements statue steadily suddenly supposed " +
    "supposedly surely surprised surrounded themselves thereby therefore tissue trademark " +
    "transferred trial triumph trying useful value venue via virtue voyage voyeur warehouse " +
    "wednesday well-being whispered wholesale widely widespread willingness wireless xbox",
  3:
    "accurately achievement actual adobe alliance anime announcement annual anyone apache " +
    "apparently applying area arrangement audience audio austria authorized avenue awareness " +
    "barrier behavioral businesses businessman carrier carrying casual champion committee " +
    "compliance considered consistently continue created creating creation creative creator " +
    "curious customized denial desperately determined developed diagnose diagram dialogue " +
    "diary diego differently disagree discovered dramatically dvds easier effectively " +
    "effectiveness embarrassed employee employees employer employers encouraged encouraging " +
    "enforcement engagement entirely essentially established estimated everyday everything " +
    "everywhere excitement exclusively extremely faqs flexibility fortunately genuine " +
    "graduate guarantee guardian hawaii hopefully idea ideal ideas importantly improvement " +
    "increasingly india indian influence initially instructional introduced iowa israel " +
    "jacksonville korea korean lesbian liable likelihood linear lingerie loyalty management " +
    "manual maria measurement media median medium miami milwaukee montreal museum mutual " +
    "nominee nonetheless nuclear nutrient obvious officially ohio ongoing organized oversee " +
    "period philippines piano pioneer poetry policeman premium previous pursuant radio " +
    "reaction realize really recipe recognized refugee registered regulatory reinforce " +
    "repeatedly replacement requirement requirements retirement revenue ritual samuel " +
    "satellites sciences scientist scientists seattle serial serious sexual shareholder " +
    "sierra similarly sodium somebody soviet stadium stereo studio studios substantially " +
    "successfully suicide surprisingly taxpayer tennessee theater theatre theory tokyo " +
    "triangle twentieth typically ultimately unlikely usual vacuum various viagra video " +
    "vietnam violate violence violent virtual visual warrior whoever wyoming",
  4:
    "absolutely actually advertisement affiliate agricultural antonio anxiety appliances " +
    "appreciate appropriate approximately associate availability aviation bacteria biography " +
    "biology bulgaria canadian caribbean casualty championship coalition colombia colonial " +
    "columbia continuous cooperate coordinate criteria definitely deliberately developmental " +
    "diabetes diagnosis diameter ecological emotionally enthusiasm environmental european " +
    "evaluate everybody experience february geographic geography graduation historian " +
    "historically html http ieee immediate indiana industrial influential ingredient initiate " +
    "interior investigator ironically january manufacturing material materials memorial misc " +
    "mysql mysterious ncaa negotiate ontario personalized politically portfolio priorities " +
    "priority radiation realistic reality recipient reconcile recreation relatively reliable " +
    "respectively romania scenario scientific seriously significantly situation society " +
    "spiritual stereotype superior theology traditionally tutorial underlying unfortunately " +
    "unusual valuable variable variation variety victoria violation virtually voip",
  5:
    "appreciation association bestiality bibliography biological christianity cooperation " +
    "cooperative coordinator creativity curiosity editorial evaluation eventually experiences " +
    "identifying ideology individual individuals initiative intellectual intermediate " +
    "liability louisiana minneapolis miscellaneous multimedia negotiation organizational " +
    "orientation palestinian philadelphia rehabilitation sexuality theological theoretical " +
    "undergraduate",
  6: "encyclopedia ideological memorabilia reconciliation reliability",
};
