-- radref D1 schema, migration 9: IHE MRRT metadata and coded content of report templates.
--
-- metadata is a JSON object (Dublin Core elements and template attributes); coded_content a
-- JSON array of {id, codes}. Existing templates get the identifier, date and language a new
-- template is given, so that an export of one and its import back are the same template.

ALTER TABLE templates ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
ALTER TABLE templates ADD COLUMN coded_content TEXT NOT NULL DEFAULT '[]';

UPDATE templates
SET metadata = json_object(
    'identifier', 'urn:radref:template:' || id,
    'date', substr(created_at, 1, 10),
    'language', 'en')
WHERE metadata = '{}';
