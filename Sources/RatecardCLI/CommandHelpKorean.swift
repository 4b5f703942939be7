import RatecardKit

/// Each command's `--help` in Korean (`--lang ko`, or a Korean locale): what the command does,
/// what each option does and the longer explanation, by command name, as `CommandExamples` holds
/// the examples. Usage lines, option names and examples stay as typed; a test checks that every
/// command and every option it takes has its Korean here.
enum CommandHelpKorean {
    struct Text {
        var abstract: String
        var discussion: String? = nil
        /// The Korean of this command's own options, by name (shared ones are in `shared`).
        var options: [String: String] = [:]
    }

    /// The Korean of `command`'s help, nil when there is none.
    static func of(_ command: String) -> Text? { table[command] }

    /// The Korean of what `option` does in `command`.
    static func option(_ option: String, of command: String) -> String? { table[command]?.options[option] ?? shared[option] }

    /// Options several commands share, worded the same in each.
    static let shared: [String: String] = [
        "-C": "DIR에서 시작한 것처럼 실행합니다",
        "--lang": "메시지 언어: en 또는 ko (기본값: LC_ALL, LC_MESSAGES, LANG을 따르고, 없으면 영어)",
        "--help": "도움말을 보여 줍니다",
        "--env": "ratecard.yaml에 적힌 환경 이름",
        "--root": "서빙 루트 폴더",
        "--no-wait": "다른 ratecard 프로세스가 잠금을 쥐고 있으면 기다리지 않고 바로 종료 코드 3으로 끝냅니다",
        "--format": "text(기본값) 또는 json",
        "--as-of": "무엇이 현재 시행 중인지 정하는 날짜 (기본값: 오늘, 서울 시각)",
        "--force": "불량 표시가 있는 릴리스의 번들도 내보냅니다 (없으면 종료 코드 3; 저널에 기록됩니다)",
        "--signing-key": "ratecard.yaml에 signing:이 있는 환경에서 live.json에 서명할 개인 키 (여러 번 줄 수 있음; 없으면 $RATECARD_SIGNING_KEY)",
    ]

    static let table: [String: Text] = [
        "init": Text(
            abstract: "예제 콘텐츠와 첫 커밋이 든 새 콘텐츠 저장소를 만듭니다.",
            discussion: "DIR은 아직 없거나 비어 있어야 합니다. 커밋에는 git에 설정된 이름과 이메일을 쓰고, 설정이 없으면 'ratecard <ratecard@localhost>'를 씁니다."),
        "validate": Text(
            abstract: "콘텐츠를 검사합니다: 스키마, 법정 상한, 참조, 구간, 날짜, 고지 문구, 변경 이력.",
            discussion: """
                --rev나 --range가 없으면 작업 트리를 검사하고, 이력 규칙은 HEAD와 비교합니다. --rev는 그 커밋의
                부모와 비교해 이력 규칙을 검사합니다. 부모가 없는 얕은 클론에서는 이력 규칙을 실행할 수 없어, 모든
                보고서에 실행하지 않은 규칙으로 나오고 종료 코드는 4입니다 ('git fetch --deepen=1'로 부모를 받거나,
                일부러 건너뛰려면 --allow-shallow를 주세요). --range는 문제마다 그 문제를 들여온 커밋을 알려 줍니다.
                범위 안의 나중 커밋이 고친 문제는 이력으로만 보여 주고 세지 않습니다. 터미널에서는 (NO_COLOR가 없으면)
                문제마다 원본 줄과 위치 표시를 색으로 보여 줍니다. 경고만 있으면 종료 코드는 0입니다.
                """,
            options: [
                "--rev": "커밋 하나를 git 오브젝트에서 읽어 검사합니다 (체크아웃 없이, bare 클론에서도 됩니다)",
                "--range": "A..B의 모든 커밋을 검사하고, 문제마다 그 문제를 들여온 커밋을 알려 줍니다",
                "--staged": "git 인덱스에 스테이징된 내용을 검사합니다 (pre-commit 훅이 씁니다)",
                "--format": "text(기본값), json, github, sarif, junit 중 하나",
                "--allow-shallow": "얕은 클론에 부모가 없는 커밋은 실패(종료 코드 4)하지 않고 이력 규칙을 건너뜁니다",
            ]),
        "rules": Text(
            abstract: "모든 검증 규칙을 보여 줍니다: id, 심각도, 무엇을 왜 검사하는지.",
            options: ["--format": "text(기본값) 또는 json"]),
        "schema": Text(
            abstract: "편집기를 위해 콘텐츠 파일 종류마다 JSON 스키마(draft 2020-12)를 씁니다.",
            options: [
                "--out": "<종류>.schema.json을 쓸 폴더 (기본값 .ratecard-schemas: ratecard init이 편집기에 연결해 두는 곳)",
                "--check": "아무것도 쓰지 않습니다; DIR의 스키마가 없거나 최신이 아니면 종료 코드 1",
            ]),
        "build": Text(
            abstract: "콘텐츠를 번들로 만듭니다: JSON 데이터, HTML 페이지, sha256 목록.",
            discussion: "같은 커밋과 같은 --as-of는 언제나 바이트까지 같은 결과를 냅니다. 콘텐츠가 잘못되었으면\n'ratecard validate'와 같은 보고서를 보여 주고 아무것도 쓰지 않으며, 종료 코드는 1입니다.",
            options: [
                "--rev": "커밋 하나를 git 오브젝트에서 읽어 만듭니다 (기본값: 작업 트리)",
                "--as-of": "현재 시행 중인 금리표와 약관을 정하는 날짜 (기본값: 오늘, 서울 시각)",
                "--out": "결과를 쓸 폴더; 새 번들이 다 만들어졌을 때에만 바뀝니다",
                "--format": "콘텐츠가 잘못되었을 때 문제를 보여 줄 형식 (text, json, github, sarif, junit); json은 만든 것도 알려 줍니다",
                "--allow-shallow": "얕은 클론에 부모가 없는 커밋도 이력 규칙을 건너뛰고 만듭니다 (없으면 종료 코드 4)",
            ]),
        "preview": Text(
            abstract: "웹 빌드와 번들을 브라우저로 열 수 있는 폴더 하나에 만들거나, 띄워 놓고 고칠 때마다 다시 만듭니다(--watch).",
            discussion: """
                --watch는 읽어 들인 콘텐츠를 메모리에 둡니다. 파일을 고치면 그 파일만 다시 읽고, 그 변경이 영향을 줄 수
                있는 것만 다시 검사하며, 바뀐 부분만 다시 그려 번들을 새로 만듭니다. 디스크에는 (빌드 캐시 말고는)
                아무것도 쓰지 않습니다. 콘텐츠에 오류가 있거나 파일을 읽을 수 없는 동안에는 모든 페이지가 마지막 빌드
                대신 그 오류(경로:줄:열, 규칙, 메시지 또는 읽기 오류)를 보여 줍니다. 열려 있는 페이지는 다시 만들 때마다
                저절로 새로 고쳐집니다. 페이지는 만든 그대로 보내고, 스크립트 하나만 덧붙입니다 (보안 정책에서 그
                스크립트에 'self'를 허용합니다). Ctrl-C로 멈춥니다.
                """,
            options: [
                "--rev": "커밋 하나를 미리 봅니다 (기본값: 작업 트리)",
                "--web": "웹 빌드 폴더 (기본값: ratecard.yaml의 'web', 없으면 ../site)",
                "--out": "결과를 쓸 곳 (기본값: 콘텐츠 폴더 안의 .preview)",
                "--watch": "127.0.0.1에서 미리보기를 띄우고, 콘텐츠와 웹 폴더를 지켜보다가 고친 부분을 다시 만들고 열린 페이지를 새로 고칩니다",
                "--port": "--watch가 쓸 포트, 127.0.0.1에서만 (기본값 8000; 0이면 비어 있는 포트를 고릅니다)",
            ]),
        "diff": Text(
            abstract: "의미 단위로 차이를 보여 줍니다: 제휴사, 상품, 금리 구간, 약관 버전, 법정 한도.",
            discussion:
                "리비전을 주지 않으면 HEAD와 작업 트리를 비교하고, --env/--root를 주면 지금 라이브인 것과 HEAD를 비교합니다.\n리비전 하나: 그것과 작업 트리. 둘: 첫째와 둘째.\n리비전 자리에 환경 이름을 쓰면 그 환경에서 라이브인 것을 뜻합니다 (diff staging production).",
            options: [
                "--format": "text(기본값), json, markdown(풀 리퀘스트 댓글용) 중 하나",
                "--as-of": "어느 금리표끼리 비교할지 정하는 날짜 (기본값: 오늘, 서울 시각)",
            ]),
        "save": Text(
            abstract: "콘텐츠를 검사하고 의미 단위 차이를 보여 준 뒤, 콘텐츠의 변경만 커밋합니다.",
            discussion: "잘못된 콘텐츠는 커밋하지 않고 거부하며 종료 코드는 1입니다. 경고는 보여 주기만 하고 저장을 막지 않습니다.\n콘텐츠 폴더 밖의 파일은 절대 커밋하지 않습니다.",
            options: [
                "-m": "커밋 메시지 (필수)",
                "--author": "\"이름 <이메일>\" (기본값: git config의 user.name과 user.email)",
            ]),
        "log": Text(
            abstract: "제휴사, 상품, 약관 문서 하나의 변경 이력과, 그 변경을 내보낸 릴리스.",
            options: [
                "--partner": "제휴사 id",
                "--product": "<제휴사-id>/<상품-id> 꼴의 상품",
                "--terms": "약관 문서 id",
                "--as-of": "어느 금리표끼리 비교할지 정하는 날짜 (기본값: 오늘)",
            ]),
        "show": Text(
            abstract: "지난 어느 때 화면이 보여 준 것: 그때 라이브였던 릴리스와 상품의 금리 또는 약관 버전.",
            discussion: """
                릴리스는 저널에 따라 그 분의 끝에 라이브였던 것입니다. 정리(prune)된 릴리스는 저널에 기록된 커밋과 기준일로
                다시 빌드하고, 번들 id가 저널과 같을 때만 보여 줍니다.
                """,
            options: [
                "--at": "그 시각 (서울 시각): \"YYYY-MM-DD HH:MM\" (또는 HH:MM:SS)",
                "--product": "<제휴사-id>/<상품-id> 꼴의 상품: 구간, 금리, 한도, 공시 사항, 상환 예시",
                "--terms": "약관 문서 id: 시행 중이던 버전",
            ]),
        "hook": Text(
            abstract: "스테이징된 콘텐츠를 검사해 잘못된 커밋을 막는 git pre-commit 훅을 설치합니다.",
            discussion: """
                훅은 콘텐츠 폴더에서 'ratecard validate --staged'를 실행합니다. ratecard는 $RATECARD, 그다음 PATH,
                그다음 (이 ratecard가 저장소 안에 있으면) 저장소 기준으로 같은 경로에서 찾습니다. 그래서 다시 빌드하거나
                옮기거나 새로 클론해도 훅이 계속 동작하며, 빌드한 절대 경로는 기록하지 않습니다.
                """),
        "publish": Text(
            abstract: "커밋 하나를 빌드해 라이브로 만듭니다: 라이브 릴리스 옆에 준비한 뒤, 이름 바꾸기 한 번으로 교체합니다.",
            discussion: "이미 라이브인 것을 게시하면 아무것도 바뀌지 않고 종료 코드는 0입니다. 보호된 환경에 위험한 변경을 게시하려면\n(그 환경의 첫 릴리스도 포함해) --approve가 필요합니다. 커밋하지 않은 콘텐츠는 거부합니다 (종료 코드 1).",
            options: [
                "--rev": "게시할 커밋 (기본값: HEAD; 커밋하지 않은 콘텐츠는 거부합니다)",
                "--web": "웹 빌드 폴더 (기본값: ratecard.yaml의 'web', 없으면 ../site)",
                "--no-web": "웹 빌드 없이 번들만 게시합니다 (릴리스는 데이터와 페이지만 제공합니다)",
                "--expect-live": "지금 이 릴리스가 라이브일 때에만 교체합니다 (비교 후 교체; 빈 루트는 'none')",
                "-m": "사유: 저널에 기록됩니다",
                "--dry-run": "무엇이 바뀔지(의미 단위 차이, 그다음 파일) 보여 주기만 하고 아무것도 건드리지 않습니다",
                "--if-stale": "라이브 릴리스(또는 단계적으로 배포 중인 릴리스)를 만든 뒤 시행 예정이던 것이 시행되었을 때에만, 진행 중인 단계적 배포를 먼저 중단하고 라이브 릴리스의 커밋을 오늘 기준으로 다시 만듭니다 (매일 도는 타이머용)",
                "--approve": "보호된 환경에 위험한 변경을 승인합니다 (저널에 기록됩니다)",
                "--allow-shallow": "얕은 클론에 부모가 없는 커밋도 이력 규칙을 건너뛰고 게시합니다 (없으면 종료 코드 4)",
                "--rollout": "먼저 설치의 이 비율(1-99 %)에만 내보내고 나머지의 라이브는 그대로 둡니다; 'ratecard rollout'으로 넓히거나 완료하거나 중단합니다",
            ]),
        "promote": Text(
            abstract: "한 환경에서 라이브인 릴리스를 다른 환경에서도 바이트까지 똑같이 라이브로 만듭니다.",
            options: [
                "--from": "릴리스를 가져올 환경 (또는 서빙 루트 폴더)",
                "--to": "릴리스를 라이브로 만들 환경 (또는 서빙 루트 폴더)",
                "--release": "승격할 릴리스 (기본값: --from에서 라이브인 것)",
                "--expect-live": "지금 --to에서 이 릴리스가 라이브일 때에만 교체합니다",
                "-m": "사유: 저널에 기록됩니다",
                "--dry-run": "무엇이 바뀔지(의미 단위 차이, 그다음 파일) 보여 주기만 하고 아무것도 건드리지 않습니다",
                "--approve": "보호된 --to 환경에 위험한 변경을 승인합니다 (저널에 기록됩니다)",
            ]),
        "rollback": Text(
            abstract: "보관된 다른 릴리스를 라이브로 만듭니다 (이름 바꾸기 한 번). --to 없는 롤백은 떠나는 릴리스에 불량 표시를 붙입니다.",
            discussion: """
                --to 없는 롤백은 이 릴리스 전에 라이브였던 가장 최근의 정상 릴리스로 돌아가고, 떠나는 릴리스에 불량 표시를
                붙입니다. 그 뒤의 --to 없는 롤백은 그 릴리스로 돌아가지 않습니다. --to를 주면 떠나는 릴리스에는 --mark-bad를
                줄 때에만 불량 표시가 붙습니다. 다시 앞으로 되돌리거나 여러 릴리스를 건너 돌아가는 것은 떠나는 릴리스가
                잘못되었다는 뜻이 아니기 때문입니다. 불량 표시가 있는 릴리스를 다시 라이브로 만들려면 --force를 주거나
                (표시는 지워집니다) 'ratecard releases --clear-bad'로 표시를 지우세요.
                """,
            options: [
                "--to": "라이브로 만들 릴리스: id, id의 고유한 앞부분, 또는 순번 (기본값: 라이브 전의 가장 최근 정상 릴리스)",
                "--mark-bad": "--to와 함께, 떠나는 릴리스에도 불량 표시를 붙입니다 (--to 없는 롤백은 언제나 붙이고, --to만 주면 붙이지 않습니다)",
                "--force": "불량 표시가 있는 릴리스로도 --to를 허용합니다 (표시는 지워집니다)",
                "--expect-live": "지금 이 릴리스가 라이브일 때에만 롤백합니다",
                "--verify": "먼저 대상의 모든 파일을 다시 해시합니다 (기본값: 게시할 때 모든 파일을 확인하고 저널에 기록한 해시와 version.json을 비교합니다)",
                "--dry-run": "어느 릴리스가 라이브가 될지 말하고 확인만 하며, 아무것도 바꾸지 않습니다",
                "-m": "사유 (필수): 저널에 기록됩니다",
            ]),
        "rollout": Text(
            abstract: "진행 중인 단계적 배포를 바꿉니다: 설치 비율, 모두에게 라이브로 만들기, 중단.",
            discussion: """
                'ratecard publish --rollout PCT'는 릴리스를 게시하되 라이브는 그대로 둡니다: live.json이 브리지 라인마다 모두가
                불러오는 릴리스와, 단계적으로 배포하는 릴리스와 그 비율을 적습니다. 설치는 sha256(<설치 id>\\n<배포 id>)이 비율보다
                작을 때 그 비율에 듭니다. 그래서 같은 폰은 같은 답을 받고, 비율을 넓히면 전에 받던 폰은 모두 계속 받습니다.
                폰이 무엇을 받는지는 'ratecard fetch URL --bridge N --install-id ID'로 확인하세요. 진행 중인 배포가 없으면 종료 코드 3.
                """,
            options: [
                "--percent": "단계적으로 배포하는 릴리스를 불러오는 설치의 비율, 1-99 (넓히면 전에 받던 설치는 모두 계속 받습니다)",
                "--complete": "모두에게 라이브로 만듭니다: 포인터 교체, 게시처럼 저널에 기록됩니다",
                "--halt": "배포를 끝냅니다: 어느 설치도 그 릴리스를 불러오지 않고, --keep-good이 없으면 불량 표시를 붙입니다",
                "--keep-good": "--halt와 함께, 불량 표시를 붙이지 않습니다",
                "-m": "사유 (필수): 저널에 기록됩니다",
            ]),
        "status": Text(
            abstract: "지금 라이브인 것: 릴리스, 언제부터, 어느 커밋에서, version.json이 게시한 그대로인지.",
            discussion: "--env나 --root가 없으면 ratecard.yaml에 적힌 모든 환경을 보여 줍니다. 시각은 서울 시각으로 보여 줍니다."),
        "releases": Text(
            abstract: "릴리스 이력: id, 커밋, 누가, 언제, 메시지, 라이브와 불량 표시, 불량 표시를 지운 사람과 사유.",
            options: [
                "--limit": "최신 릴리스 N개를 보여 줍니다 (기본값 50; 0이면 모두)",
                "--clear-bad": "릴리스의 불량 표시를 지웁니다 (저널에 기록됨). --to 없는 롤백이 그 릴리스를 다시 고를 수 있게 됩니다",
                "-m": "불량 표시를 지우는 사유 (--clear-bad와 함께 필수)",
            ]),
        "verify": Text(
            abstract: "라이브 릴리스를 파일 목록과 대조합니다. 하나라도 어긋나면 종료 코드는 1입니다.",
            options: [
                "--deep": "버킷에서는 모든 파일을 내려받아 다시 해시합니다 (기본값은 목록의 키와 크기만 비교합니다; 폴더는 언제나 다시 해시합니다)"
            ]),
        "prune": Text(
            abstract: "오래된 릴리스를 지웁니다. 최신 N개, 라이브 릴리스, 그 전의 가장 최근 정상 릴리스는 남기고, 남긴 릴리스가 쓰지 않는 오브젝트를 지웁니다.",
            options: [
                "--keep": "남겨 둘 최신 릴리스의 수",
                "--grace": "최근 MINUTES분 안에 라이브였던 릴리스도 모두 남깁니다 (그 릴리스로 열린 페이지가 파일을 계속 받을 수 있도록; 기본값 0)",
                "--dry-run": "지울 릴리스를 보여 주기만 하고 아무것도 지우지 않습니다",
            ]),
        "repair": Text(
            abstract: "포인터를 따라야 하는 파일(bridge-lines.json, 버킷의 index.html)을 다시 쓰고, 릴리스에서 빠진 엔트리 파일을 되살립니다."),
        "keys": Text(
            abstract: "live.json(앱이 불러올 것)에 서명할 Ed25519 키 쌍을 만듭니다.",
            discussion: """
                DIR/<name>.key(개인 키, PKCS#8 PEM, 모드 0600)와 DIR/<name>.pub(한 줄, ed25519:<base64>)를 쓰고,
                ratecard.yaml의 환경 아래에 넣을 signing: 블록을 출력합니다. 개인 키는 비밀 저장소에 두고(CI에서는
                RATECARD_SIGNING_KEY에 그 내용을), publish, promote, rollback, prune, releases --clear-bad, sign에
                --signing-key FILE로 주세요.
                """,
            options: [
                "--out": "<name>.key(개인 키, 모드 0600)와 <name>.pub를 쓸 폴더; 콘텐츠 저장소 안은 안 됩니다",
                "--name": "파일 이름 (기본값: ratecard-signing)",
            ]),
        "sign": Text(
            abstract: "지금 라이브인 것에 대한 live.json에 만료 전에 다시 서명합니다 (새 순번과 만료).",
            discussion: """
                매일 실행하세요('publish --if-stale' 옆에서): 앱은 만료된 서명을 거부하므로, 바뀌지 않는 서버가 앱을
                expires_after_days보다 오래 옛 릴리스에 묶어 둘 수 없습니다.
                """),
        "nginx-conf": Text(
            abstract: "이 루트를 안전하게 제공하는 nginx server 블록을 출력합니다.",
            options: ["--listen": "nginx가 들을 주소 (기본값 127.0.0.1:8080)"]),
        "serve": Text(
            abstract: "서빙 루트에서 라이브인 것을 nginx-conf 블록과 같은 방식으로, 읽기 전용으로 127.0.0.1에서 제공합니다.",
            discussion: """
                nginx 없이 자기 컴퓨터에서 환경을 살펴보기 위한 것입니다. 라이브 릴리스는 /에, 오브젝트는
                /o/<sha256>.<ext>에, 보관된 모든 릴리스는 /r/<id>/에, bridge-lines.json과 함께 제공하며, 그 블록의
                Cache-Control과 보안 헤더, 404 응답(점으로 시작하는 파일, version.json)도 같습니다. 게시나 롤백은 다음
                요청부터 보입니다. 아무것도 쓰지 않고, GET과 HEAD만 받으며, 릴리스 안의 심볼릭 링크는 따라가지 않습니다
                (릴리스의 약관 링크는 예외). 버킷은 그 대신 CDN이나 정적 웹사이트 기능으로 제공하세요. Ctrl-C로 멈춥니다.
                """,
            options: ["--port": "127.0.0.1의 포트 (기본값 8080; 0이면 비어 있는 아무 포트)"]),
        "bridge": Text(
            abstract: "bridge.yaml로 네이티브 브리지를 만듭니다: 앱용 Swift와 로더, 웹 빌드용 JS 런타임과 .d.ts.",
            discussion: """
                <web>/app/bridge.js(웹 빌드가 앱을 부를 때 쓰는 런타임), <web>/app/bridge.d.ts(그 타입), 앱이 컴파일하는
                Swift 파일(메시지 타입, RatecardBridgeHandler 프로토콜, 모든 메시지에 답하는 디스패처)과 그 옆에 앱의 로더인
                RatecardLoader.swift('ratecard fetch'가 실행하는 코드: 웹 뷰에 넘기기 전에 live.json과 모든 파일을 검사합니다;
                docs/bridge.md 참고)를 씁니다. 결과는 bridge.yaml과 이 ratecard 빌드에만 달려 있습니다. 'validate'는 웹 빌드가 스키마로 만든 것을 그대로 싣고 선언된 것만 부르는지
                검사합니다. 스키마가 잘못되었으면 종료 코드는 1입니다.
                """,
            options: [
                "--web": "bridge.yaml이 든 웹 빌드 폴더 (기본값: ratecard.yaml의 'web', 없으면 ../site)",
                "--swift": "앱의 Swift를 쓸 곳 (기본값: 웹 빌드 옆의 native/RatecardBridge.swift)",
            ]),
        "fetch": Text(
            abstract: "앱이 생성된 로더로 불러오는 것과 똑같이 제공 중인 환경을 불러오며, live.json과 모든 파일을 검사합니다.",
            discussion: """
                <url>/live.json을 받아 믿는 키의 서명(--trust가 없으면 해시만 확인하고 선언은 서명 확인 없음으로 알립니다),
                환경, 순번이 전에 받아들인 가장 높은 순번보다 낮지 않은지, 만료되지 않았는지를 검사하고 브리지 라인을 고른 뒤,
                릴리스의 파일 목록과 모든 파일을 <url>/o/에서 받아 각각 sha256과 크기를 확인합니다. 다른 호스트로의
                리디렉션은 거부합니다. --state가 있으면 확인한 파일을 해시로 보관하고, 처음 불러온 환경을 그 뒤로 기대합니다.
                단계적 배포 중에는 폰에서처럼 설치 id(--install-id, 없으면 state 폴더에 보관한 무작위 id)가 배포 중인 릴리스를
                불러올지 정합니다.
                종료 코드 0: 앱이 불러올 릴리스를 출력합니다. 1: 제공된 것을 거부했습니다; 이유와 유지하는 마지막 정상 릴리스를
                출력합니다(앱은 그것을 엽니다). 4: 아무것도 받지 못했습니다(유지한 릴리스가 있으면 앱은 그것을 엽니다).
                """,
            options: [
                "--trust": "앱이 믿는 공개 키 ('keys generate'의 .pub 파일, 또는 ed25519:<base64>); 여러 개면 되풀이합니다",
                "--bridge": "앱의 브리지 버전: 그 이하에서 가장 큰 라인을 불러옵니다",
                "--state": "확인한 파일, 마지막 정상 릴리스, 받아들인 가장 높은 순번을 실행 사이에 보관할 폴더",
                "--now": "만료를 비교할 시각, RFC 3339 (기본값: 지금)",
                "--install-id": "단계적 배포에서 이 설치로 여길 id (기본값: --state 폴더에 한 번 만들어 둔 무작위 id); 폰 하나가 무엇을 받는지 확인할 때 씁니다",
                "--format": "text(기본값) 또는 json: 결과, 릴리스, 거부한 이유",
            ]),
        "generate": Text(
            abstract: "금리 변경 이력이 있는, 올바른 대용량 콘텐츠 저장소를 만듭니다 (시드로 재현 가능).",
            discussion: "DIR은 아직 없거나 비어 있어야 합니다. 만든 콘텐츠는 2026-01-01 이후 어느 --as-of 날짜로도 오류와 경고가\n없습니다. 'make bench'는 이 콘텐츠로 ratecard를 잽니다.",
            options: [
                "--partners": "제휴 금융회사 수 (기본값 300)",
                "--products": "제휴사들에 나눠 둘 상품 수 (기본값 3000)",
                "--tables": "상품들에 나눠 둘 날짜별 금리표 수 (기본값 6000)",
                "--terms": "약관 버전 수, 문서마다 다섯 개, 각각 한국어 마크다운 약 8KB (기본값 2000)",
                "--history": "첫 커밋 뒤에 더할 커밋 수, 커밋마다 금리표 하나를 바꿉니다 (기본값 200)",
                "--seed": "난수 시드; 같은 시드는 같은 파일과 같은 커밋 id를 만듭니다 (기본값 1)",
            ]),
        "version": Text(
            abstract: "버전과 빌드 지문(이 실행 파일과 그 안의 cmark, libyaml, libgit2)을 출력합니다.",
            discussion: "지문은 모든 번들의 목록에 'build'로 기록됩니다. 게시는 라이브 번들이 같은 빌드로 만들어졌을 때에만\n그 번들을 바탕으로 만듭니다."),
        "completion": Text(
            abstract: "명령 표로 만든 bash나 zsh용 셸 자동 완성 스크립트를 출력합니다.",
            discussion: "이 스크립트는 명령 이름, 명령마다의 옵션, --format과 --lang의 값을 완성합니다."),
    ]
}

extension RatecardCLI.ExitCode {
    /// The meaning of each code in Korean, as `table` says it in English.
    static let koreanMeanings: [Int32: String] = [
        ok: "정상",
        invalid:
            "입력 때문에 거부됨: 콘텐츠가 잘못되었거나, 관문이 거부했거나(승인, 브리지, 커밋하지 않은 변경, 라이브 릴리스보다 이른 날짜), 릴리스가 자기 version.json과 더는 맞지 않거나, verify가 어긋난 곳을 찾았습니다",
        usage: "사용법 오류: 알 수 없는 명령, 옵션, 환경, 릴리스, 키이거나, 값이 없거나 형식이 잘못되었습니다",
        conflict:
            "대상의 상태 때문에 거부됨: 잠금이 잡혀 있거나, 라이브가 --expect-live와 다르거나, 롤백 대상에 불량 표시가 있거나 이미 라이브이거나, 롤백할 것이 없거나(또는 검증, 비교, 승격, 제공할 라이브 릴리스가 없거나), 단계적 배포가 진행 중이거나(rollout에는 없거나), 쓸 폴더가 비어 있지 않습니다",
        failure:
            "작업 실패: 입출력(파일이나 폴더가 없거나 읽을 수 없음, 디스크 가득 참), 권한, git, 오브젝트 스토리지의 거부나 연결 실패, 또는 실행할 수 없는 검사(얕은 클론에서의 이력 규칙)",
    ]

    /// `helpSection` in `language`.
    static func helpSection(_ language: Language) -> String {
        guard language == .ko else { return helpSection }
        var text = "종료 코드:\n"
        for (code, _) in table {
            // Wrapped at 100 terminal cells, as the English is at 100 characters.
            var line = "  \(code)  "
            for word in (koreanMeanings[code] ?? "").split(separator: " ") {
                if ServeRootCommands.cells(line) + ServeRootCommands.cells(String(word)) + 1 > 100, !line.hasSuffix("  ") {
                    text += line + "\n"
                    line = "     "
                }
                line += (line.hasSuffix(" ") ? "" : " ") + word
            }
            text += line + "\n"
        }
        return text + "  1, 3, 4일 때 라이브 릴리스는 바뀌지 않습니다.\n"
    }
}
